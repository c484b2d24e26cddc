import { ManualClock } from '../../../shared/clock';
import type { TestServer } from '../../support/embedded-server';
import { Scenario } from '../../grants/support/scenario';
import type { StartExpiryServer } from './start-server';
import { at, T0 } from './instants';
import { folderAndDocument } from './world';

/**
 * `expires_at` on role assignments and relationship tuples: written, read back, listed, moved and
 * refused (docs/expiring-access.md); run on each read-model engine, since lists and reads go through them.
 */
export function writeSideSuite(title: string, start: StartExpiryServer): void {
  describe(title, () => {
    let server: TestServer;
    const clock = new ManualClock(T0);
    let envs = 0;
    beforeAll(async () => {
      server = await start({ clock });
    });
    afterAll(() => server.close());

    const world = (): Promise<Scenario> => folderAndDocument(server, `expiry-write-${++envs}`);

    it('stores the end of an assignment as UTC with milliseconds, in any zone it is sent in, and lists it', async () => {
      const s = await world();
      const created = await s.api.post(`${s.facts}/role_assignments`, {
        user: 'alice',
        role: 'editor',
        resource_instance: 'folder:f',
        expires_at: '2030-01-01T02:30:00+02:00',
      });
      expect(created.status).toBe(200);
      expect(created.body.expires_at).toBe('2030-01-01T00:30:00.000Z');
      const plain = await s.ok(s.api.post(`${s.facts}/role_assignments`, { user: 'bob', role: 'editor', resource_instance: 'folder:f' }));
      expect(plain.expires_at).toBeNull();
      const listed = await s.ok(s.api.get(`${s.facts}/role_assignments?resource_instance=folder:f`));
      expect(Object.fromEntries(listed.map((a: any) => [a.user, a.expires_at]))).toEqual({ alice: '2030-01-01T00:30:00.000Z', bob: null });
      const detailed = await s.ok(s.api.get(`${s.facts}/role_assignments/detailed?user=alice`));
      expect(detailed[0].expires_at).toBe('2030-01-01T00:30:00.000Z');
    });

    it('filters lists by expires_before: only what ends before that instant, never what does not end', async () => {
      const s = await world();
      await s.instance('document:e', 'acme');
      for (const [user, end] of [
        ['a', at(T0 + 1_000)],
        ['b', at(T0 + 2_000)],
        ['c', null],
      ] as const)
        await s.ok(s.api.post(`${s.facts}/role_assignments`, { user, role: 'viewer', resource_instance: 'document:d', expires_at: end }));
      const before = async (instant: string) =>
        (await s.ok(s.api.get(`${s.facts}/role_assignments?expires_before=${encodeURIComponent(instant)}`))).map((a: any) => a.user).sort();
      expect(await before(at(T0 + 2_000))).toEqual(['a']);
      expect(await before(at(T0 + 2_001))).toEqual(['a', 'b']);
      expect(await before('2030-01-01T01:00:00+01:00')).toEqual([]);

      await s.ok(
        s.api.post(`${s.facts}/relationship_tuples`, {
          subject: 'folder:f',
          relation: 'parent',
          object: 'document:d',
          expires_at: at(T0 + 5),
        }),
      );
      await s.ok(s.api.post(`${s.facts}/relationship_tuples`, { subject: 'folder:f', relation: 'parent', object: 'document:e' }));
      const tuples = await s.ok(s.api.get(`${s.facts}/relationship_tuples?expires_before=${encodeURIComponent(at(T0 + 6))}`));
      expect(tuples.map((t: any) => [t.object, t.expires_at])).toEqual([['document:d', at(T0 + 5)]]);

      const bad = await s.api.get(`${s.facts}/role_assignments?expires_before=tomorrow`);
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['query', 'expires_before']);
    });

    it('refuses an end that is past, now, unparseable or without a zone: 422 naming the field', async () => {
      const s = await world();
      for (const expires_at of [at(T0 - 1), at(T0), 'soon', '2030-01-01T10:00:00', '2030-02-30T10:00:00Z', 12345]) {
        const response = await s.api.post(`${s.facts}/role_assignments`, {
          user: 'alice',
          role: 'editor',
          resource_instance: 'folder:f',
          expires_at,
        });
        expect({ expires_at, status: response.status }).toEqual({ expires_at, status: 422 });
        expect(response.body.detail[0].loc).toEqual(['body', 'expires_at']);
      }
      const tuple = await s.api.post(`${s.facts}/relationship_tuples`, {
        subject: 'folder:f',
        relation: 'parent',
        object: 'document:d',
        expires_at: at(T0 - 1),
      });
      expect(tuple.status).toBe(422);
      expect(tuple.body.detail[0].loc).toEqual(['body', 'expires_at']);
      // One millisecond ahead is the future.
      await s.ok(
        s.api.post(`${s.facts}/role_assignments`, { user: 'alice', role: 'editor', resource_instance: 'folder:f', expires_at: at(T0 + 1) }),
      );
      expect(await s.ok(s.api.get(`${s.facts}/role_assignments?user=alice`))).toHaveLength(1);
    });

    it('moves the end of an assignment written again with expires_at, removes it with null, and keeps 409 without it', async () => {
      const s = await world();
      const body = { user: 'alice', role: 'editor', resource_instance: 'folder:f' };
      const first = await s.ok(s.api.post(`${s.facts}/role_assignments`, { ...body, expires_at: at(T0 + 1_000) }));
      const moved = await s.ok(s.api.post(`${s.facts}/role_assignments`, { ...body, expires_at: at(T0 + 9_000) }));
      expect(moved.id).toBe(first.id);
      expect(moved.expires_at).toBe(at(T0 + 9_000));
      const removed = await s.ok(s.api.post(`${s.facts}/role_assignments`, { ...body, expires_at: null }));
      expect(removed).toMatchObject({ id: first.id, expires_at: null });
      const duplicate = await s.api.post(`${s.facts}/role_assignments`, body);
      expect(duplicate.status).toBe(409);
      expect(duplicate.body.error_code).toBe('DUPLICATE_ENTITY');
      const log = await s.ok(s.api.get(`/v2/events/default/${s.envKey}?type=RoleAssignmentExpirySet`));
      const events = log.data ?? log;
      expect(events.map((e: any) => e.data.expires_at)).toEqual([at(T0 + 9_000), null]);
    });

    it('takes an assignment written again after its end (before its expiry event) as a new one', async () => {
      const s = await world();
      const body = { user: 'alice', role: 'editor', resource_instance: 'folder:f' };
      const first = await s.ok(s.api.post(`${s.facts}/role_assignments`, { ...body, expires_at: at(T0 + 10) }));
      clock.set(T0 + 10);
      const again = await s.ok(s.api.post(`${s.facts}/role_assignments`, body));
      expect(again.id).not.toBe(first.id);
      expect(again.expires_at).toBeNull();
      const log = await s.ok(s.api.get(`/v2/events/default/${s.envKey}?type=RoleAssignmentExpired`));
      expect((log.data ?? log).map((e: any) => [e.data.id, e.data.expires_at])).toEqual([[first.id, at(T0 + 10)]]);
      clock.set(T0);
    });

    it('moves the end of a tuple written again, and takes ends in bulk (all or none, the item named)', async () => {
      const s = await world();
      const tuple = { subject: 'folder:f', relation: 'parent', object: 'document:d' };
      const first = await s.ok(s.api.post(`${s.facts}/relationship_tuples`, { ...tuple, expires_at: at(T0 + 10) }));
      const moved = await s.ok(s.api.post(`${s.facts}/relationship_tuples`, { ...tuple, expires_at: at(T0 + 20) }));
      expect(moved).toMatchObject({ id: first.id, expires_at: at(T0 + 20) });

      await s.instance('document:e', 'acme');
      const refused = await s.api.post(`${s.facts}/relationship_tuples/bulk`, {
        operations: [
          { subject: 'folder:f', relation: 'parent', object: 'document:e', expires_at: at(T0 + 1) },
          { ...tuple, expires_at: at(T0 - 1) },
        ],
      });
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0].loc).toEqual(['body', 'operations', 1, 'expires_at']);
      expect(await s.ok(s.api.get(`${s.facts}/relationship_tuples?object=document:e`))).toEqual([]);
      await s.ok(
        s.api.post(`${s.facts}/relationship_tuples/bulk`, {
          operations: [
            { subject: 'folder:f', relation: 'parent', object: 'document:e', expires_at: at(T0 + 1) },
            { ...tuple, expires_at: null },
          ],
        }),
      );
      const listed = await s.ok(s.api.get(`${s.facts}/relationship_tuples?subject=folder:f`));
      expect(listed.map((t: any) => [t.object, t.expires_at]).sort()).toEqual([
        ['document:d', null],
        ['document:e', at(T0 + 1)],
      ]);

      const assignments = await s.api.post(`${s.facts}/role_assignments/bulk`, [
        { user: 'u1', role: 'viewer', resource_instance: 'document:d', expires_at: at(T0 + 3) },
        { user: 'u2', role: 'viewer', resource_instance: 'document:d', expires_at: 'later' },
      ]);
      expect(assignments.status).toBe(422);
      expect(assignments.body.detail[0].loc).toEqual(['body', 1, 'expires_at']);
      await s.ok(
        s.api.post(`${s.facts}/role_assignments/bulk`, [
          { user: 'u1', role: 'viewer', resource_instance: 'document:d', expires_at: at(T0 + 3) },
          { user: 'u2', role: 'viewer', resource_instance: 'document:d' },
        ]),
      );
      const held = await s.ok(s.api.get(`${s.facts}/role_assignments?resource_instance=document:d`));
      expect(Object.fromEntries(held.map((a: any) => [a.user, a.expires_at]))).toEqual({ u1: at(T0 + 3), u2: null });
    });

    it('refuses expires_at on an unassignment or a tuple deletion (it would be taken and ignored)', async () => {
      const s = await world();
      await s.assign('alice', 'editor', 'folder:f');
      const response = await s.api.delete(`${s.facts}/role_assignments`, {
        user: 'alice',
        role: 'editor',
        resource_instance: 'folder:f',
        expires_at: at(T0 + 5),
      });
      expect(response.status).toBe(422);
    });
  });
}
