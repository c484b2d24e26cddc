import { historyProjection } from '../../projection-service/history/projection';
import { GrantQueries } from '../../command-service/grant-queries/grant-queries';
import { GrantsAsOf } from '../../command-service/grant-queries/grants-as-of';
import type { ChainStep } from '../../command-service/grant-queries/explain';
import { decisionHistory } from '../../command-service/time-travel/decision-history';
import { AsOfDocumentStore, HistoryCollections } from '../../shared/read-models/history/history';
import { ReadModels } from '../../shared/read-models/read-models';
import { ENV, GrantsHarness } from '../grants/support/harness';
import { Random } from '../grants/support/random';
import { createWorldSchema, randomCommand, WORLD } from '../grants/support/random-world';
import { grantKeys, recomputeGrants } from '../grants/support/reference';

/**
 * The random world of the grants tests (every kind of support added and
 * removed, whole roles, relations, instances, tenants and resource types
 * deleted with their cascades), with the history projection beside the
 * others. Every 10 steps the current answers are taken; at the end, each is
 * asked again as of its position and must be the same: checks, user
 * permissions, authorized users, and the grants derived on the fly against the
 * from-scratch reference. Explanations as of then must be real supports then.
 */
describe('as_of answers under a random sequence of adds and deletes', () => {
  for (const seed of seedsFromEnv() ?? [7, 1234]) {
    it(`equal the answers taken at the same positions (seed ${seed})`, async () => {
      const h = await new GrantsHarness(undefined, (rm) => [historyProjection(rm)]).start();
      try {
        await createWorldSchema(h);
        const r = new Random(seed);
        const moments: Moment[] = [];
        for (let step = 0; step < 300; step++) {
          await h.exec(randomCommand(r, await h.state()));
          if (step % 10 === 9) {
            await h.settle();
            moments.push(await moment(h));
          }
        }
        expect(new Set(moments.map((m) => JSON.stringify(m.grants))).size).toBeGreaterThan(10);
        let allowed = 0;
        for (const then of moments) {
          const past = new ReadModels(new AsOfDocumentStore(h.read.store, then.position));
          const queries = GrantQueries.over(past);
          const again = await answers(queries);
          expect({ position: then.position, ...again }).toEqual({ position: then.position, ...then.answers });
          expect({ position: then.position, grants: await grantsOnTheFly(past) }).toEqual({ position: then.position, grants: then.grants });
          for (const [question, allow] of Object.entries(then.answers.checks)) {
            if (!allow) continue;
            allowed++;
            const explained = await GrantQueries.over(past).check(ENV, JSON.parse(question), true);
            for (const granted of explained.explanation!.granted_by) {
              if (granted.kind !== 'resource_role') continue;
              expect({ question, problems: unsupported(granted.chain, granted.resource_instance, then) }).toEqual({
                question,
                problems: [],
              });
            }
          }
        }
        expect(allowed).toBeGreaterThan(20);

        // Decision histories: the changes found evaluating only where it can matter are those of evaluating everywhere.
        const since = moments[0]!.position;
        const until = moments.at(-1)!.position;
        const deps = {
          history: new HistoryCollections(h.read.store),
          eventStore: h.events,
          readsAt: (p: number) => new ReadModels(new AsOfDocumentStore(h.read.store, p)),
        };
        const rolesAt = async (question: Question, p: number) => {
          const { allow, explanation } = await GrantQueries.over(deps.readsAt(p)).check(ENV, question, true);
          return `${allow} ${explanation!.granted_by
            .map((g) => (g.kind === 'set_rule' ? g.set_rule : g.kind === 'tenant_role' ? g.role : `${g.role}@${g.resource_instance}`))
            .sort()
            .join(',')}`;
        };
        let changes = 0;
        for (const question of questions(new Random(seed))) {
          const found = await decisionHistory(deps, ENV, question, since, until);
          const everywhere: number[] = [];
          let previous = await rolesAt(question, since);
          for (let p = since + 1; p <= until; p++) {
            const now = await rolesAt(question, p);
            if (now !== previous) everywhere.push(p);
            previous = now;
          }
          expect({ question, changes: found.changes.map((c) => c.position) }).toEqual({ question, changes: everywhere });
          expect(found.evaluated).toBeLessThan(until - since);
          changes += everywhere.length;
        }
        expect(changes).toBeGreaterThan(5);
      } finally {
        await h.close();
      }
    });
  }
});

type Question = { user: string; action: string; resource: { type: string; key: string; tenant: null } };

/** A few questions about instances of every type (files, at the end of the longest paths, twice). */
function questions(r: Random): Question[] {
  const files = WORLD.KEYS.file!;
  return [
    { user: r.pick([...WORLD.USERS]), action: 'read', resource: { type: 'file', key: r.pick([...files]), tenant: null } },
    { user: r.pick([...WORLD.USERS]), action: 'read', resource: { type: 'file', key: r.pick([...files]), tenant: null } },
    { user: r.pick([...WORLD.USERS]), action: 'read', resource: { type: 'folder', key: r.pick([...WORLD.KEYS.folder!]), tenant: null } },
    {
      user: r.pick([...WORLD.USERS]),
      action: 'manage',
      resource: { type: 'account', key: r.pick([...WORLD.KEYS.account!]), tenant: null },
    },
  ];
}

interface Moment {
  position: number;
  answers: Awaited<ReturnType<typeof answers>>;
  /** The reference's grants (user|instance|role), from the decider's state then. */
  grants: string[];
  tuples: Set<string>;
  assignments: Map<string, string>;
}

async function moment(h: GrantsHarness): Promise<Moment> {
  const state = await h.state();
  const grants = recomputeGrants(state);
  // The materialised grants agree with the reference (the grants tests check this too): the answers below are the current ones.
  expect(grantKeys(await h.read.allGrants())).toEqual(grants);
  return {
    position: h.read.runner.position,
    answers: await answers(h.read.queries),
    grants,
    tuples: new Set([...state.tuples.values()].map((t) => `${t.subject}|${t.relation}|${t.object}`)),
    assignments: new Map([...state.assignments.values()].map((a) => [a.id, `${a.user}|${a.resourceInstance}|${a.role}`])),
  };
}

const instances = () => WORLD.TYPES.flatMap((type) => WORLD.KEYS[type]!.map((key) => ({ type, key })));

/** Every check, every user's permissions and every instance's readers, as the queries answer them. */
async function answers(queries: GrantQueries) {
  const checks: Record<string, boolean> = {};
  for (const user of WORLD.USERS)
    for (const { type, key } of instances())
      for (const action of WORLD.ACTIONS[type]!) {
        const question = { user, action, resource: { type, key, tenant: null } };
        checks[JSON.stringify(question)] = (await queries.check(ENV, question)).allow;
      }
  const permissions: Record<string, unknown> = {};
  for (const user of WORLD.USERS) permissions[user] = await queries.userPermissions(ENV, { user, limit: 1000 });
  const readers: Record<string, unknown> = {};
  for (const resource of instances())
    readers[`${resource.type}:${resource.key}`] = await queries.authorizedUsers(ENV, {
      action: 'read',
      resource: { ...resource, tenant: null },
      limit: 100,
    });
  return { checks, permissions, readers };
}

/** The grants the on-the-fly derivation finds, asked per instance (walking up) and per user (walking down): both must be the reference's. */
async function grantsOnTheFly(past: ReadModels): Promise<string[]> {
  const queries = GrantQueries.over(past);
  const perInstance: string[] = [];
  const perUser: string[] = [];
  // Asked of the on-the-fly grants themselves: /authorized_users names the assignment behind a grant, not the grant.
  const onTheFly = new GrantsAsOf(past);
  for (const { type, key } of instances()) {
    for (const g of await onTheFly.find({ environment_id: ENV, instance: `${type}:${key}` }))
      perInstance.push(`${g.user}|${g.instance}|${g.role}`);
  }
  for (const user of WORLD.USERS) {
    const page = await queries.userPermissions(ENV, { user, limit: 1000 });
    for (const [instance, entry] of Object.entries(page.permissions))
      for (const role of entry.roles) perUser.push(`${user}|${instance}|${role}`);
  }
  // Every role of the random world permits 'read', so readers are exactly the holders.
  expect(perInstance.sort()).toEqual(perUser.sort());
  return perUser;
}

/** What is wrong with a chain as a support at that moment (empty: it is one). */
function unsupported(chain: ChainStep[], instance: string, then: Moment): string[] {
  const problems: string[] = [];
  const [root, ...steps] = chain;
  if (
    root?.step !== 'role_assignment' ||
    then.assignments.get(root.assignment_id) !== `${root.user}|${root.resource_instance}|${root.role}`
  )
    problems.push(`root ${JSON.stringify(root)} is not an assignment then`);
  let at = root?.step === 'role_assignment' ? { role: root.role, instance: root.resource_instance } : null;
  for (const step of steps) {
    if (step.step !== 'role_derivation') {
      problems.push(`step ${JSON.stringify(step)}`);
      continue;
    }
    if (!then.tuples.has(`${step.tuple.subject}|${step.tuple.relation}|${step.tuple.object}`))
      problems.push(`tuple ${JSON.stringify(step.tuple)} did not exist then`);
    if (at?.role !== step.from.role || at.instance !== step.from.resource_instance || step.tuple.subject !== at.instance)
      problems.push(`step ${JSON.stringify(step)} does not follow`);
    if (!then.grants.some((g) => g.endsWith(`|${step.resource_instance}|${step.role}`)))
      problems.push(`nobody held ${step.role} on ${step.resource_instance}`);
    at = { role: step.role, instance: step.resource_instance };
  }
  if (at?.instance !== instance) problems.push(`chain ends at ${at?.instance}, not ${instance}`);
  return problems;
}

function seedsFromEnv(): number[] | null {
  const spec = process.env.TIME_TRAVEL_SEEDS;
  if (!spec) return null;
  const [from = 1, to = from] = spec.split('-').map(Number);
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
