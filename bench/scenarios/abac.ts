import type { BenchContext } from '../lib/context';
import { repeatLoad, type Repeated } from '../lib/load';
import type { ScenarioResult } from '../lib/results';
import { environmentKey, runOptions, startService } from '../lib/service';

const SCHEMA = '/v2/schema/default/production';
const FACTS = '/v2/facts/default/production';
const TENANT = 'acme';
/** Distinct checks each load rotates through. */
const CHECKS = 4_000;

/**
 * ABAC vs RBAC, side by side in one run on one service: `POST /allowed` for a
 * user and a document instance, 4 connections, uncached (`Cache-Control:
 * no-cache`, so each check reads the store).
 *
 * - RBAC: users holding a tenant role that grants `document:read` (half of them).
 * - ABAC: users holding no role, asking `document:view`, which only a set rule
 *   grants (user set `user.level >= 2` on resource set `resource.classification
 *   == "public"`): the role lookup denies, then the set rules are evaluated over
 *   the stored user, instance and tenant attributes.
 *
 * Target (issue 15): an ABAC check costs at most twice an RBAC check of the same shape.
 */
export async function abacScenario(ctx: Pick<BenchContext, 'options' | 'log'>): Promise<ScenarioResult[]> {
  const { durationS, repeat, warmupS } = ctx.options;
  const size = ctx.options.mode === 'quick' ? 2_000 : 20_000;
  const service = await startService(runOptions(ctx.options, 'abac'));
  try {
    const api = await environmentKey(service.admin);
    ctx.log(`abac: ${size.toLocaleString('en-US')} users and documents with attributes, a tenant role and a set rule`);
    await api.ok('POST', `${SCHEMA}/resources`, {
      key: 'document',
      name: 'Document',
      actions: { read: {}, view: {} },
      attributes: { classification: { type: 'string' } },
    });
    await api.ok('POST', `${SCHEMA}/resources/__user/attributes`, { key: 'level', type: 'number' });
    await api.ok('POST', `${SCHEMA}/roles`, { key: 'reader', name: 'Reader', permissions: ['document:read'] });
    await api.ok('POST', `${FACTS}/tenants`, { key: TENANT, name: 'Acme' });
    for (let from = 0; from < size; from += 1000) {
      const range = Array.from({ length: Math.min(1000, size - from) }, (_, k) => from + k);
      await api.ok('POST', `${FACTS}/bulk/users`, { operations: range.map((i) => ({ key: `u${i}`, attributes: { level: i % 5 } })) });
      await api.ok('PUT', `${FACTS}/bulk/resource_instances`, {
        operations: range.map((i) => ({
          key: `d${i}`,
          resource: 'document',
          tenant: TENANT,
          attributes: { classification: i % 2 ? 'public' : 'secret' },
        })),
      });
      await api.ok(
        'POST',
        `${FACTS}/role_assignments/bulk`,
        range.filter((i) => i % 2 === 0).map((i) => ({ user: `u${i}`, role: 'reader', tenant: TENANT })),
      );
    }
    await api.ok('POST', `${SCHEMA}/condition_sets`, {
      key: 'seniors',
      name: 'Seniors',
      conditions: { allOf: [{ 'user.level': { 'greater-than-equals': 2 } }] },
    });
    await api.ok('POST', `${SCHEMA}/condition_sets`, {
      key: 'public',
      name: 'Public',
      type: 'resourceset',
      resource_id: 'document',
      conditions: { allOf: [{ 'resource.classification': { equals: 'public' } }] },
    });
    await api.ok('POST', `${FACTS}/set_rules`, { user_set: 'seniors', permission: 'document:view', resource_set: 'public' });

    // Users of both rows are spread over the data set; a document per check.
    const rbac = (k: number) => ({
      user: `u${(2 * k) % size}`,
      action: 'read',
      resource: { type: 'document', key: `d${(7 * k) % size}`, tenant: TENANT },
    });
    const abac = (k: number) => ({
      user: `u${(2 * k + 1) % size}`,
      action: 'view',
      resource: { type: 'document', key: `d${(7 * k) % size}`, tenant: TENANT },
    });
    const expectedAbac = (k: number) => ((2 * k + 1) % size) % 5 >= 2 && ((7 * k) % size) % 2 === 1;
    const sample = Array.from({ length: 200 }, (_, k) => k * 13);
    const answers = await api.ok('POST', '/allowed/bulk', sample.map(abac));
    const wrong = sample.filter((k, i) => answers.allow[i].allow !== expectedAbac(k)).length;
    if (wrong > 0) throw new Error(`${wrong} of ${sample.length} ABAC answers differ from the data set's`);
    const rbacAnswers = await api.ok('POST', '/allowed/bulk', sample.map(rbac));
    if (rbacAnswers.allow.some((a: { allow: boolean }) => !a.allow)) throw new Error('an RBAC check of a role holder was denied');

    const rotate = (bodies: string[]) => {
      let k = 0;
      return () => bodies[k++ % bodies.length]!;
    };
    const headers = { ...api.headers, 'cache-control': 'no-cache' };
    const load = (make: (k: number) => unknown, label: string): Promise<Repeated> =>
      repeatLoad(
        {
          url: `${service.url}/allowed`,
          headers,
          body: rotate(Array.from({ length: CHECKS }, (_, k) => JSON.stringify(make(k)))),
          connections: 4,
          durationS,
          label,
        },
        repeat,
        warmupS,
      );
    ctx.log('abac: measuring RBAC then ABAC checks, uncached, 4 connections');
    const rbacRun = await load(rbac, 'rbac-check');
    const abacRun = await load(abac, 'abac-check');
    const cost = rbacRun.median.rps / abacRun.median.rps;
    const allowed = Math.round((100 * sample.filter(expectedAbac).length) / sample.length);
    return [
      {
        id: 'abac-check',
        title: 'POST /allowed by a set rule (ABAC) vs by a tenant role (RBAC), uncached',
        value: abacRun.median.rps,
        unit: 'req/s',
        better: 'higher',
        p50Ms: abacRun.median.p50Ms,
        p99Ms: abacRun.median.p99Ms,
        runs: abacRun.runs.map((r) => r.rps),
        baseline: { value: rbacRun.median.rps, unit: 'req/s (RBAC, same shape)', ratio: 1 / cost },
        target: { text: 'an ABAC check costs ≤ 2× an RBAC check', met: cost <= 2 },
        notes: `4 conns, Cache-Control: no-cache; ${size.toLocaleString('en-US')} users and documents; RBAC ${Math.round(rbacRun.median.rps)} req/s (p50 ${rbacRun.median.p50Ms} ms, p99 ${rbacRun.median.p99Ms} ms); ABAC costs ${cost.toFixed(2)}× RBAC; ${allowed}% of ABAC checks allowed; answers verified on ${sample.length} checks`,
        details: { size, rbac: rbacRun.runs, abac: abacRun.runs, cost },
      },
    ];
  } finally {
    await service.stop();
  }
}
