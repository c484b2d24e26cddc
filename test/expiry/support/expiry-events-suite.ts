import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ExpiryScheduler } from '../../../command-service/expiry/scheduler';
import { ManualClock } from '../../../shared/clock';
import { CommandPipeline } from '../../../shared/cqrs/command-pipeline';
import { envDecider } from '../../../shared/domain/env/decider';
import { ReadModels } from '../../../shared/read-models/read-models';
import { Scenario } from '../../grants/support/scenario';
import type { StartExpiryServer } from './start-server';
import { at, T0 } from './instants';
import { folderAndDocument } from './world';

const FAST = { EXPIRY_POLL_MS: '20' };

/** The events of `type` in the environment's log, oldest first. */
async function eventsOf(s: Scenario, type: string): Promise<any[]> {
  const page = await s.ok(s.api.get(`/v2/events/default/${s.envKey}?type=${type}`));
  return page.data ?? page;
}

/** Waits (real time) until `check` holds, or fails after `ms`. */
async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('did not happen in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const assign = (s: Scenario, user: string, role: string, instance: string, end: number) =>
  s.ok(s.api.post(`${s.facts}/role_assignments`, { user, role, resource_instance: instance, expires_at: at(end) }));

/**
 * The expiry events the scheduler appends after each end (docs/expiring-access.md); run on each
 * read-model engine, since the scheduler finds what is due in the read models. Each test starts its
 * own service (on read models named after the test).
 */
export function expiryEventsSuite(title: string, start: StartExpiryServer): void {
  describe(title, () => {
    it('appends one event per end soon after it, by the system, with the end it took effect at; the read models drop what ended', async () => {
      const clock = new ManualClock(T0);
      const server = await start({ clock, env: FAST }, 'events');
      try {
        const s = await folderAndDocument(server, 'expiry-events');
        await s.ok(
          s.api.post(`${s.facts}/relationship_tuples`, {
            subject: 'folder:f',
            relation: 'parent',
            object: 'document:d',
            expires_at: at(T0 + 3_000),
          }),
        );
        await assign(s, 'alice', 'editor', 'folder:f', T0 + 1_000);
        await assign(s, 'bob', 'viewer', 'folder:f', T0 + 60_000);
        const start = (await s.ok(s.api.get(`/v2/events/default/${s.envKey}?type=RoleAssigned`))).data?.at(-1)?.position;

        clock.set(T0 + 999);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(await eventsOf(s, 'RoleAssignmentExpired')).toEqual([]);

        clock.set(T0 + 5_000);
        await eventually(async () => (await eventsOf(s, 'RelationshipTupleExpired')).length === 1);
        const [expired] = await eventsOf(s, 'RoleAssignmentExpired');
        expect(expired).toMatchObject({
          actor: { type: 'system', id: null },
          data: { user: 'alice', role: 'editor', expires_at: at(T0 + 1_000) },
        });
        const [cut] = await eventsOf(s, 'RelationshipTupleExpired');
        expect(cut.data).toMatchObject({ subject: 'folder:f', object: 'document:d', expires_at: at(T0 + 3_000) });
        // In the order of their ends; nothing more for the ends still ahead.
        expect(expired.position).toBeLessThan(cut.position);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(await eventsOf(s, 'RoleAssignmentExpired')).toHaveLength(1);
        expect(await eventsOf(s, 'RelationshipTupleExpired')).toHaveLength(1);

        // Dropped from the read models themselves, not only hidden by the clock.
        const rm = new ReadModels(server.service.documentStore);
        const env = (await s.ok(s.api.get('/v2/projects/default/envs'))).find((e: any) => e.key === s.envKey).id;
        expect((await rm.assignments.find({ environment_id: env })).map((a) => a.user)).toEqual(['bob']);
        expect(await rm.tuples.find({ environment_id: env })).toEqual([]);
        expect((await rm.factEnds.find({ environment_id: env })).map((e) => e.expires_at)).toEqual([at(T0 + 60_000)]);

        // The decision's history names the expiry as the cause.
        const history = await s.ok(s.api.post('/allowed/history', { user: 'alice', action: 'write', resource: 'folder:f', since: start }));
        const denied = history.changes.find((c: any) => c.decision_changed && !c.allow);
        expect(denied.event.type).toBe('RoleAssignmentExpired');
        expect(denied.cause.summary).toContain(`expired at ${at(T0 + 1_000)}`);
      } finally {
        await server.close();
      }
    });

    it('after a restart past the ends, appends the expiries it missed, each with its own end', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'rebac-expiry-'));
      const clock = new ManualClock(T0);
      try {
        const first = await start({ dataDir, clock, env: FAST }, 'restart');
        const s = await folderAndDocument(first, 'expiry-restart');
        await assign(s, 'alice', 'editor', 'folder:f', T0 + 1_000);
        await assign(s, 'bob', 'viewer', 'document:d', T0 + 2_000);
        await first.close({ keepData: true });

        clock.set(T0 + 3_600_000);
        const again = await start({ dataDir, clock, env: FAST }, 'restart');
        try {
          const after = s.on(again.url);
          await eventually(async () => (await eventsOf(after, 'RoleAssignmentExpired')).length === 2);
          expect((await eventsOf(after, 'RoleAssignmentExpired')).map((e) => [e.data.user, e.data.expires_at])).toEqual([
            ['alice', at(T0 + 1_000)],
            ['bob', at(T0 + 2_000)],
          ]);
        } finally {
          await again.close();
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    it('appends each expiry once when several schedulers (each with its own command pipeline, as replicas) run at the same instant', async () => {
      const clock = new ManualClock(T0);
      const server = await start({ clock, env: { EXPIRY_POLL_MS: '0' } }, 'race');
      try {
        const s = await folderAndDocument(server, 'expiry-race');
        for (let i = 0; i < 20; i++) await assign(s, `user${i}`, 'viewer', 'document:d', T0 + 1 + i);
        clock.set(T0 + 1_000);
        const { services, eventStore } = server.service;
        const logger = pino({ level: 'silent' });
        // Each replica keeps its own state of the stream: their appends for the same ends conflict on the stream's version.
        const schedulers = Array.from(
          { length: 3 },
          () =>
            new ExpiryScheduler({
              readModels: services.readModels,
              envCommands: new CommandPipeline(eventStore, envDecider, logger),
              clock,
              logger,
              pollMs: 20,
            }),
        );
        const appended = await Promise.all(schedulers.map((scheduler) => scheduler.runOnce()));
        expect(appended.reduce((a, b) => a + b, 0)).toBe(20);
        await eventually(async () => (await eventsOf(s, 'RoleAssignmentExpired')).length >= 20);
        const events = await eventsOf(s, 'RoleAssignmentExpired');
        expect(events.map((e) => e.data.user).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `user${i}`).sort());
        expect(events.map((e) => e.data.expires_at)).toEqual(Array.from({ length: 20 }, (_, i) => at(T0 + 1 + i)));
      } finally {
        await server.close();
      }
    });
  });
}
