import { EffectiveGrants } from '../../../command-service/grant-queries/effective-grants';
import { GrantQueries } from '../../../command-service/grant-queries/grant-queries';
import type { EnvCommand } from '../../../shared/domain/env/commands';
import { assignmentEndKey, tupleEndKey, type EnvState } from '../../../shared/domain/env/state';
import { tupleEdges } from '../../../shared/read-models/grants/fact-finders';
import { inForceAt } from '../../../shared/read-models/in-force';
import type { DocumentStore } from '../../../shared/docstore/port';
import { ENV, GrantsHarness } from '../../grants/support/harness';
import { Random } from '../../grants/support/random';
import { createWorldSchema, randomCommand, WORLD } from '../../grants/support/random-world';
import { grantKeys, recomputeGrants, referenceAllows, unsoundReasons } from '../../grants/support/reference';
import { at, T0 } from './instants';

/**
 * One random sequence with ends (`seed`), checked as described above, on the read models of
 * `store` (default: SQLite; test/expiry/mongo.e2e.test.ts passes MongoDB's; the checks are those of test/expiry/randomized-ends.int.test.ts).
 */
export async function randomSequenceWithEnds(seed: number, store?: DocumentStore, steps = 300): Promise<void> {
  const h = await new GrantsHarness(store).start();
  try {
    await createWorldSchema(h);
    const r = new Random(seed);
    let now = T0;
    let moved = 0;
    let expired = 0;
    let withEnds = 0;
    for (let step = 0; step < steps; step++) {
      const state = await h.state();
      const command = withEnd(r, now, r.chance(0.15) ? rewrite(r, state) : randomCommand(r, state));
      const result = await h.exec(command);
      if (result.ok) {
        for (const e of result.events) {
          if (e.type === 'RoleAssignmentExpirySet' || e.type === 'RelationshipTupleExpirySet') moved++;
          if (e.type === 'RoleAssignmentExpired' || e.type === 'RelationshipTupleExpired') expired++;
          if ((e.type === 'RoleAssigned' || e.type === 'RelationshipTupleCreated') && e.data.expiresAt) withEnds++;
        }
      }
      if (r.chance(0.1)) now += r.int(40);
      if (r.chance(0.05)) {
        const due = await h.exec({ type: 'ExpireDue', now: at(now) });
        if (due.ok) expired += due.events.length;
      }
      if (step % 15 === 14) {
        await h.settle();
        const s = await h.state();
        const stored = await h.read.storedGrants();
        expect(unsoundReasons(stored, s)).toEqual([]);
        for (const instant of instantsThatMatter(s, now)) {
          const grants = await grantsAt(h, instant);
          expect({ step, instant: at(instant), grants: grantKeys(grants) }).toEqual({
            step,
            instant: at(instant),
            grants: recomputeGrants(inForce(s, instant)),
          });
        }
        expect({ step, wrong: await wrongChecks(h, s, now) }).toEqual({ step, wrong: [] });
      }
    }
    // Not a vacuous pass: ends written, moved and expired.
    expect(withEnds).toBeGreaterThan(steps / 10);
    expect(moved).toBeGreaterThan(steps / 60);
    expect(expired).toBeGreaterThan(steps / 60);

    await h.settle();
    const rebuilt = await h.rebuild();
    const view = (side: typeof rebuilt) =>
      new EffectiveGrants(side.grants, tupleEdges(inForceAt(side.rm, () => now).tuples), undefined, () => now).find(
        { environment_id: ENV },
        { sortBy: 'id' },
      );
    expect(grantKeys(await view(rebuilt))).toEqual(grantKeys(await view(h.read)));
  } finally {
    await h.close();
  }
}

/** Ends near the clock: some already past (as the log may hold), most ahead; a third of the writes have none. */
function endNear(r: Random, now: number): string | null {
  return r.chance(0.33) ? null : at(now - 20 + r.int(120));
}

/** Assignments and tuples written with an end (or, now and then, explicitly none). */
function withEnd(r: Random, now: number, command: EnvCommand): EnvCommand {
  if (command.type !== 'AssignRole' && command.type !== 'CreateTuple') return command;
  return r.chance(0.7) ? { ...command, expiresAt: endNear(r, now) } : command;
}

/** An existing assignment or tuple written again: its end moves (to none, sometimes). */
function rewrite(r: Random, s: EnvState): EnvCommand {
  const assignments = [...s.assignments.values()];
  const tuples = [...s.tuples.values()];
  if (assignments.length > 0 && (tuples.length === 0 || r.chance(0.5))) {
    const a = r.pick(assignments);
    return {
      type: 'AssignRole',
      id: `a-${r.int(1e9)}`,
      newUserId: `u-${r.int(1e9)}`,
      user: a.user,
      role: a.role,
      tenant: a.resourceInstance === null ? a.tenant : null,
      resourceInstance: a.resourceInstance,
    };
  }
  if (tuples.length === 0) return { type: 'ExpireDue', now: at(T0) };
  const t = r.pick(tuples);
  return { type: 'CreateTuple', id: `t-${r.int(1e9)}`, subject: t.subject, relation: t.relation, object: t.object, tenant: null };
}

/** Now, every end still in the state and the millisecond before it, and a moment past the last. */
function instantsThatMatter(s: EnvState, now: number): number[] {
  const instants = new Set([now]);
  for (const end of s.ends.values()) {
    const ms = Date.parse(end);
    if (ms >= now) instants.add(ms).add(ms - 1);
  }
  instants.add(Math.max(...instants) + 1);
  return [...instants].filter((t) => t >= now).sort((a, b) => a - b);
}

/** The state with only the assignments and tuples in force at `instant` (for the reference). */
function inForce(s: EnvState, instant: number): EnvState {
  const live = (endKey: string) => {
    const end = s.ends.get(endKey);
    return end === undefined || Date.parse(end) > instant;
  };
  return {
    ...s,
    assignments: new Map([...s.assignments].filter(([, a]) => live(assignmentEndKey(a)))),
    tuples: new Map([...s.tuples].filter(([, t]) => live(tupleEndKey(t)))),
  } as unknown as EnvState;
}

/** Every grant of the environment in force at `instant`, stored or implied, as the queries read them. */
function grantsAt(h: GrantsHarness, instant: number) {
  const view = inForceAt(h.read.rm, () => instant);
  return new EffectiveGrants(h.read.grants, tupleEdges(view.tuples), undefined, () => instant, h.read.rm.assignments).find(
    { environment_id: ENV },
    { sortBy: 'id' },
  );
}

/** Every check of the world at `now` against the reference; the disagreements. */
async function wrongChecks(h: GrantsHarness, s: EnvState, now: number): Promise<string[]> {
  const queries = GrantQueries.overStored(
    inForceAt(h.read.rm, () => now),
    h.read.grants,
    () => now,
  );
  const live = inForce(s, now);
  const grants = recomputeGrants(live);
  const wrong: string[] = [];
  for (const instance of s.instances.values()) {
    const ref = `${instance.resource}:${instance.key}`;
    for (const user of WORLD.USERS) {
      for (const action of WORLD.ACTIONS[instance.resource] ?? []) {
        const request = { user, action, resource: { type: instance.resource, key: instance.key, tenant: instance.tenant } };
        const expected = referenceAllows(live, grants, user, ref, action);
        const allow = (await queries.check(ENV, request)).allow;
        if (allow !== expected) wrong.push(`${user} ${action} ${ref}: ${allow}, expected ${expected}`);
      }
    }
  }
  return wrong;
}
