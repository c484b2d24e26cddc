import { queryIndex, type IndexQuery } from '../../../command-service/audit/index-query';
import { auditLogProjection, termsOf, type AuditLogOptions } from '../../../projection-service/audit/audit-projection';
import type { DocumentStore } from '../../../shared/docstore/port';
import type { DomainEvent, EventMetadata, RecordedEvent, RecordedOf } from '../../../shared/events';
import { AuditCollections, decodeBlock, decodePostings, POSITION_WIDTH } from '../../../shared/read-models/audit-log';
import type { Projection } from '../../../shared/read-models/projection';

/**
 * Checks of the audit-log index through the document-store port only, so that
 * each engine runs them (SQLite in the int tests, MongoDB/FerretDB in e2e).
 */

/** Deterministic randomness (mulberry32), so a failure replays. */
export function random(seed: number) {
  let a = seed;
  const next = () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]! };
}

const ENVS = ['env-a', 'env-b', 'env-c'];
const ORG = 'org-o';

export function randomLog(seed: number, count: number): Array<RecordedOf<DomainEvent>> {
  const r = random(seed);
  const versions = new Map<string, number>();
  const events: Array<RecordedOf<DomainEvent>> = [];
  let clock = Date.parse('2026-01-01T00:00:00Z');
  let request = { id: 'req-0', actor: 'key-1' as string | null, metadata: undefined as Record<string, unknown> | undefined, left: 0 };
  for (let position = 1; position <= count; position++) {
    if (request.left === 0) {
      // Requests of several events, as bulk writes make; some from the system, some with audit metadata.
      request = {
        id: `req-${position}`,
        actor: r.next() < 0.1 ? null : r.pick(['key-1', 'key-2', 'key-3']),
        metadata: r.next() < 0.3 ? { ticket: r.pick(['T-1', 'T-2']), n: r.int(3), tags: [r.pick(['x', 'y'])] } : undefined,
        left: 1 + r.int(r.next() < 0.2 ? 40 : 4),
      };
    }
    request.left--;
    // Mostly forward; now and then a writer whose clock is behind.
    clock += r.next() < 0.1 ? -r.int(5000) : r.int(2000);
    const streamId = r.next() < 0.05 ? ORG : r.pick(ENVS);
    const version = versions.get(streamId) ?? 0;
    versions.set(streamId, version + 1);
    const metadata: EventMetadata = {
      actor: request.actor,
      requestId: request.id,
      correlationId: request.actor === null && r.next() < 0.5 ? undefined : request.id,
      timestamp: new Date(clock).toISOString(),
      schemaVersion: 1,
      ...(request.metadata ? { auditMetadata: request.metadata } : {}),
    };
    const user = `u${r.int(8)}`;
    const instance = () => `${r.pick(['doc', 'folder'])}:${r.int(10)}`;
    const tenant = r.pick(['t1', 't2']);
    const body = (() => {
      if (streamId === ORG)
        return { type: 'ProjectCreated', data: { id: `p${position}`, key: `p${position}`, name: 'P', description: '' } };
      switch (r.int(4)) {
        case 0:
          return {
            type: 'UserCreated',
            data: { id: `id${position}`, key: user, email: null, firstName: null, lastName: null, attributes: {} },
          };
        case 1: {
          const [resource, key] = instance().split(':');
          return { type: 'ResourceInstanceCreated', data: { id: `id${position}`, key, resource, tenant, attributes: {} } };
        }
        case 2: {
          const target = instance();
          return {
            type: r.next() < 0.7 ? 'RoleAssigned' : 'RoleUnassigned',
            data: {
              id: `id${position}`,
              user,
              role: r.pick(['viewer', 'editor']),
              resource: target.split(':')[0],
              tenant,
              resourceInstance: target,
            },
          };
        }
        default:
          return {
            type: 'RelationshipTupleCreated',
            data: { id: `id${position}`, subject: instance(), relation: 'parent', object: instance(), tenant },
          };
      }
    })();
    events.push({ ...body, metadata, streamId, streamVersion: version, position } as RecordedOf<DomainEvent>);
  }
  return events;
}

export async function index(projection: Projection, batch: RecordedEvent[], store: DocumentStore | null = null): Promise<void> {
  const run = async () => {
    await projection.prepare?.(batch);
    for (const event of batch) await projection.apply(event as RecordedOf<DomainEvent>);
  };
  await (store ? store.transaction(run) : run());
}

export async function dump(store: DocumentStore): Promise<unknown> {
  const c = new AuditCollections(store);
  const all = { sortBy: 'id' };
  return {
    scopes: await c.scopes.find({}, all),
    entries: await c.entries.find({}, all),
    postings: await c.postings.find({}, all),
    tasks: await c.tasks.find({}, all),
  };
}

/**
 * Indexes `log` in random batches once cleanly, once with crashes and replays (no transactions);
 * both must end as the same documents. `replayOptions`: the replaying projection's (a small
 * postings cache makes it read terms back from what it and the crashed attempts wrote). Its
 * batches are not atomic, whatever the store: it reads terms back as it must on MongoDB.
 */
export async function checkReplaysMatchOnePass(
  open: () => Promise<DocumentStore>,
  log: Array<RecordedOf<DomainEvent>>,
  maxBatch = 300,
  replayOptions: AuditLogOptions = {},
): Promise<void> {
  const clean = await open();
  const r = random(11);
  const projection = auditLogProjection(clean);
  for (let i = 0; i < log.length;) {
    const size = 1 + r.int(maxBatch);
    await index(projection, log.slice(i, i + size), clean);
    i += size;
  }

  // No transactions: a batch may stop half-way (a crash), then a new projection replays from an earlier checkpoint.
  const replayed = await open();
  const options: AuditLogOptions = { ...replayOptions, atomicBatches: false };
  let projectionNow = auditLogProjection(replayed, options);
  let checkpoint = 0;
  while (checkpoint < log.length) {
    const size = 1 + r.int(maxBatch);
    const batch = log.slice(checkpoint, checkpoint + size);
    if (r.next() < 0.3) {
      await index(projectionNow, batch.slice(0, r.int(batch.length)));
      projectionNow = auditLogProjection(replayed, options);
      continue;
    }
    await index(projectionNow, batch);
    checkpoint += size;
    // Sometimes a redelivery of what was already applied, to the same projection.
    if (r.next() < 0.1) await index(projectionNow, log.slice(Math.max(0, checkpoint - r.int(50)), checkpoint));
  }
  expect(await dump(replayed)).toEqual(await dump(clean));
}

/**
 * What the index says of each term, whatever documents say it: the positions it is found at in
 * each scope (each run expanded to the scope's entries in it), by postings prefix. Checks on the
 * way that a term's documents follow one another (each starts after the runs of the one before),
 * which the queries rely on.
 */
export async function termPositions(store: DocumentStore): Promise<Record<string, number[]>> {
  const c = new AuditCollections(store);
  const scopePositions = new Map<string, number[]>();
  for (const block of await c.entries.find({}, { sortBy: 'id' })) {
    const code = block.id.slice(0, block.id.indexOf('|'));
    const positions = scopePositions.get(code) ?? [];
    for (const entry of decodeBlock(block)) positions.push(entry.position);
    scopePositions.set(code, positions);
  }
  const byPrefix: Record<string, number[]> = {};
  const lastEnd = new Map<string, number>();
  for (const doc of await c.postings.find({}, { sortBy: 'id' })) {
    const prefix = doc.id.slice(0, -POSITION_WIDTH);
    const runs = decodePostings(doc);
    const before = lastEnd.get(prefix);
    if (before !== undefined && runs[0]! <= before)
      throw new Error(`postings ${doc.id} starts at ${runs[0]}, within the runs of the one before it (to ${before})`);
    lastEnd.set(prefix, runs[runs.length - 1]!);
    const inScope = scopePositions.get(prefix.slice(0, prefix.indexOf('|'))) ?? [];
    const found = (byPrefix[prefix] ??= []);
    for (let i = 0; i < runs.length; i += 2) found.push(...inScope.filter((p) => p >= runs[i]! && p <= runs[i + 1]!));
  }
  return byPrefix;
}

/** Random filters, ranges, orders, page sizes and read budgets over `store` (which indexed `log`), each walked page by page and compared with filtering `log` in memory. */
export async function checkRandomQueries(
  store: DocumentStore,
  log: Array<RecordedOf<DomainEvent>>,
  queries: number,
  /** Small pages and read budgets make many reads: fine on SQLite, slow on a server that scans (FerretDB). */
  smallPages = true,
): Promise<void> {
  const c = new AuditCollections(store);
  const r = random(23);
  const termsByPosition = new Map(log.map((e) => [e.position, new Set(termsOf(e))]));
  // Log time: the scope's running maximum of timestamps.
  const logTime = new Map<number, number>();
  const latest = new Map<string, number>();
  for (const e of log) {
    const t = Math.max(latest.get(e.streamId) ?? 0, Date.parse(e.metadata.timestamp));
    latest.set(e.streamId, t);
    logTime.set(e.position, t);
  }
  const allTerms = [...new Set(log.flatMap((e) => [...termsByPosition.get(e.position)!]))];

  for (let q = 0; q < queries; q++) {
    const scope = r.pick([...ENVS, ORG]);
    const code = (await c.scopes.get(scope))!.code;
    const scoped = log.filter((e) => e.streamId === scope);
    const groups = Array.from({ length: r.int(3) }, () => Array.from({ length: 1 + r.int(2) }, () => r.pick(allTerms)));
    const head = log.length;
    const low = r.next() < 0.3 ? r.int(head) : 0;
    const high = r.next() < 0.3 ? low + r.int(head - low + 1) : head;
    const times = scoped.map((e) => logTime.get(e.position)!);
    const timeFrom = r.next() < 0.2 && times.length ? r.pick(times) : undefined;
    const timeUntil = r.next() < 0.2 && times.length ? r.pick(times) + r.int(3) : undefined;
    const order = r.next() < 0.5 ? 'asc' : 'desc';
    const expected = scoped
      .filter((e) => e.position > low && e.position <= high)
      .filter(
        (e) =>
          (timeFrom === undefined || logTime.get(e.position)! >= timeFrom) &&
          (timeUntil === undefined || logTime.get(e.position)! <= timeUntil),
      )
      .filter((e) => groups.every((group) => group.some((term) => termsByPosition.get(e.position)!.has(term))))
      .map((e) => e.position);
    if (order === 'desc') expected.reverse();

    const limit = smallPages ? 1 + r.int(r.next() < 0.5 ? 5 : 200) : 50 + r.int(200);
    const readBudget = smallPages && r.next() < 0.3 ? 3 + r.int(20) : 2000;
    const got: number[] = [];
    let bounds = { low, high };
    for (let pages = 0; pages < 10_000; pages++) {
      const query: IndexQuery = { code, groups, order, ...bounds, timeFrom, timeUntil, limit, readBudget };
      const page = await queryIndex(c, query);
      expect(page.matches.length).toBeLessThanOrEqual(limit);
      for (const match of page.matches) {
        expect(match.entry.position).toBe(match.position);
        got.push(match.position);
      }
      if (page.next === null) break;
      // The next page starts after `next`, in the page's direction.
      bounds = order === 'asc' ? { low: page.next, high } : { low, high: page.next - 1 };
    }
    expect({ q, got }).toEqual({ q, got: expected });
  }
}
