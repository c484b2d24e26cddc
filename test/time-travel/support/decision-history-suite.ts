import { streams } from '../../../shared/events';
import { newId } from '../../../shared/ids';
import type { ApiResponse, TestServer } from '../../support/embedded-server';
import { documentSchema, Scenario } from '../../grants/support/scenario';

/**
 * `POST /allowed/history`: the answer at the start, then every change with its
 * position, time, roles gained or lost, the event that caused it (and where
 * that event sits in the decision's support: a tuple two hops up, a rule, a
 * role's permissions, a cascade), and the explanation then.
 */
export function decisionHistorySuite(title: string, start: () => Promise<TestServer>): void {
  describe(title, () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await start();
    });
    afterAll(() => server.close());

    const question = { user: 'alice', action: 'write', resource: 'document:d' };

    it('lists every change with its cause, including a tuple two hops up, a rule, permissions and a cascade', async () => {
      const s = await Scenario.create(server, 'history-1');
      await documentSchema(s);
      await s.instance('account:a', 'acme');
      await s.instance('folder:top', 'acme');
      await s.instance('folder:sub', 'acme');
      await s.instance('document:d', 'acme');
      const start = server.service.runner.position;
      await s.assign('alice', 'admin', 'account:a');
      await s.tuple('account:a', 'account', 'folder:top');
      await s.tuple('folder:sub', 'parent', 'document:d');
      const gainedBy = await s.api.post(`${s.facts}/relationship_tuples`, {
        subject: 'folder:top',
        relation: 'parent',
        object: 'folder:sub',
      });
      // Unrelated writes in between: not evaluated.
      await s.instance('document:other', 'acme');
      await s.assign('bob', 'editor', 'document:d');
      const lostBy = await s.api.delete(`${s.facts}/relationship_tuples`, {
        subject: 'folder:top',
        relation: 'parent',
        object: 'folder:sub',
      });
      await s.tuple('folder:top', 'parent', 'folder:sub');
      await s.ok(s.api.patch(`${s.schema}/resources/document/roles/editor`, { permissions: ['read'] }));
      await s.ok(s.api.patch(`${s.schema}/resources/document/roles/editor`, { permissions: ['read', 'write'] }));
      await s.underive('folder', 'editor', 'folder', 'editor', 'parent');
      await s.derive('folder', 'editor', 'folder', 'editor', 'parent');
      await s.ok(s.api.delete(`${s.facts}/resource_instances/folder:top`));
      const end = server.service.runner.position;

      const r = await s.api.post('/allowed/history', { ...question, since: start });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-event-position')).toBe(String(end));
      const h = r.body;
      expect(h.since).toEqual({ position: start });
      expect(h.until).toEqual({ position: end });
      expect(h.initial).toMatchObject({ position: start, allow: false, explanation: { decision: 'deny' } });
      expect(h.changes.map((c: any) => [c.allow, c.event.type])).toEqual([
        [true, 'RelationshipTupleCreated'],
        [false, 'RelationshipTupleDeleted'],
        [true, 'RelationshipTupleCreated'],
        [false, 'RoleUpdated'],
        [true, 'RoleUpdated'],
        [false, 'ImplicitGrantRemoved'],
        [true, 'ImplicitGrantAdded'],
        [false, 'RelationshipTupleDeleted'],
      ]);
      // Only what can matter was evaluated: not bob's assignment or the other document.
      expect(h.evaluated).toBeLessThan(end - start);

      const [gain, loss, , lessPermissions, , ruleGone, , cascaded] = h.changes;
      expect(gain.position).toBe(Number(gainedBy.headers.get('x-event-position')));
      expect(gain.time).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
      expect(gain.decision_changed).toBe(true);
      expect(gain.event).toMatchObject({
        type: 'RelationshipTupleCreated',
        request_id: gainedBy.headers.get('x-request-id'),
        data: { subject: 'folder:top', relation: 'parent', object: 'folder:sub' },
      });
      // The audit log's shape: the same entry GET /v2/events answers for that position, actor named.
      expect(gain.event.actor).toEqual({ type: 'api_key', id: expect.any(String), name: expect.anything() });
      const logged = await s.api.get(`/v2/events/default/${s.envKey}?after=${gain.position - 1}&until=${gain.position}`);
      expect(logged.status).toBe(200);
      expect(gain.event).toEqual(logged.body.data[0]);
      expect(gain.roles_gained.map((g: any) => [g.kind, g.role, g.resource_instance])).toEqual([['resource_role', 'editor', 'document:d']]);
      expect(gain.roles_lost).toEqual([]);
      // The tuple folder:top → folder:sub is two hops above document:d.
      // It names its own place: editor on folder:top, carried down by parent to folder:sub, then to document:d.
      const topDown = {
        from: { role: 'editor', resource_instance: 'folder:top' },
        via: [
          { relation: 'parent', resource_instance: 'folder:sub' },
          { relation: 'parent', resource_instance: 'document:d' },
        ],
      };
      expect(gain.cause.links).toEqual([
        { what: 'tuple', role: 'editor', on: 'document:d', side: 'gained', step: 2, hops_up: 2, ...topDown },
      ]);
      expect(gain.cause.summary).toMatch(/allowed by RelationshipTupleCreated: the tuple 2 hop\(s\) up/);
      expect(gain.cause.summary).toContain('(editor on folder:top, via parent → folder:sub, parent → document:d)');
      expect(gain.explanation.decision).toBe('allow');
      expect(gain.explanation.granted_by[0].chain.map((step: any) => step.resource_instance)).toEqual([
        'account:a',
        'folder:top',
        'folder:sub',
        'document:d',
      ]);

      expect(loss.position).toBe(Number(lostBy.headers.get('x-event-position')));
      expect(loss.event.request_id).toBe(lostBy.headers.get('x-request-id'));
      expect(loss.roles_lost.map((g: any) => g.role)).toEqual(['editor']);
      expect(loss.roles_lost[0].chain).toHaveLength(4);
      expect(loss.cause.links).toEqual([
        { what: 'tuple', role: 'editor', on: 'document:d', side: 'lost', step: 2, hops_up: 2, ...topDown },
      ]);
      expect(loss.explanation.decision).toBe('deny');
      expect(loss.cascade_of).toBeUndefined();

      expect(lessPermissions.cause.links).toEqual([{ what: 'permissions', role: 'editor', on: 'document:d', side: 'lost' }]);
      expect(ruleGone.cause.links).toEqual([expect.objectContaining({ what: 'rule', role: 'editor', side: 'lost' })]);
      expect(ruleGone.event.data.implicit_grant).toEqual({ on_resource: 'folder', role: 'editor', linked_by_relation: 'parent' });

      // Deleting folder:top took its tuples first: the change is the tuple's deletion, in the instance's cascade.
      expect(cascaded.cascade_of).toMatchObject({ type: 'ResourceInstanceDeleted', data: { resource: 'folder', key: 'top' } });
      expect(cascaded.cascade_of.position).toBeGreaterThan(cascaded.position);
      expect(cascaded.cause.summary).toMatch(/in the cascade of ResourceInstanceDeleted/);

      // The same changes as asking /allowed as of every position of the range.
      const flips: number[] = [];
      let previous = h.initial.allow;
      for (let p = start + 1; p <= end; p++) {
        const allow = (await s.api.post('/allowed', { ...question, as_of: p })).body.allow;
        if (allow !== previous) flips.push(p);
        previous = allow;
      }
      expect(h.changes.filter((c: any) => c.decision_changed).map((c: any) => c.position)).toEqual(flips);
    });

    it('reports a change of the roles that permit it without a change of the decision, and the audit metadata of the event when it has some', async () => {
      const s = await Scenario.create(server, 'history-2');
      await documentSchema(s);
      await s.instance('folder:f', 'acme');
      await s.instance('document:d', 'acme');
      await s.tuple('folder:f', 'parent', 'document:d');
      await s.assign('alice', 'viewer', 'document:d');
      const reading = { ...question, action: 'read' };
      const since = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 5));
      // An event whose metadata carries audit metadata (as requests with X-Audit-Metadata store it).
      const environmentId = (await s.api.get(`${s.schema}/resources/document`)).body.environment_id as string;
      const stream = streams.environment(environmentId);
      const appended = await server.service.eventStore.append(
        stream,
        [
          {
            type: 'RoleAssigned',
            data: { id: newId(), user: 'alice', role: 'editor', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:f' },
            metadata: {
              actor: null,
              requestId: 'audited-request',
              timestamp: new Date().toISOString(),
              schemaVersion: 1,
              auditMetadata: { ticket: 'SEC-42' },
            },
          },
        ],
        await server.service.eventStore.streamVersion(stream),
      );
      await server.service.runner.waitForPosition(appended.position, 5000);

      const h = (await s.api.post('/allowed/history', { ...reading, since })).body;
      expect(h.since.time).toBe(since);
      expect(h.initial.allow).toBe(true);
      expect(h.changes).toHaveLength(1);
      const [change] = h.changes;
      expect(change).toMatchObject({ position: appended.position, allow: true, decision_changed: false, roles_lost: [] });
      expect(change.roles_gained.map((g: any) => g.chain.length)).toEqual([2]);
      expect(change.event).toMatchObject({
        type: 'RoleAssigned',
        request_id: 'audited-request',
        audit_metadata: { ticket: 'SEC-42' },
        actor: { type: 'system', id: null, name: null },
        data: { user: 'alice', role: 'editor', resource_instance: 'folder:f' },
      });
      expect(change.cause.links).toEqual([
        {
          what: 'assignment',
          role: 'editor',
          on: 'document:d',
          side: 'gained',
          step: 0,
          from: { role: 'editor', resource_instance: 'folder:f' },
          via: [{ relation: 'parent', resource_instance: 'document:d' }],
        },
      ]);
      expect(change.cause.summary).toContain(
        "the assignment gave role 'editor' on 'document:d' (editor on folder:f, via parent → document:d)",
      );
      expect(change.cause.summary).toMatch(/still allowed/);
    });

    it('refuses a range that ends before it starts, or reaches beyond the log', async () => {
      const s = await Scenario.create(server, 'history-3');
      const at = server.service.runner.position;
      const expect422 = (r: ApiResponse, field: string) => {
        expect(r.status).toBe(422);
        expect(r.body.detail[0].loc).toEqual(['body', field]);
      };
      expect422(await s.api.post('/allowed/history', { ...question, since: at, until: at - 1 }), 'since');
      expect422(await s.api.post('/allowed/history', { ...question, until: at + 10_000 }), 'until');
      expect((await s.api.post('/allowed/history', { ...question, since: 1 })).status).toBe(404);
      const empty = await s.api.post('/allowed/history', question);
      expect(empty.status).toBe(200);
      expect(empty.body).toMatchObject({ initial: { allow: false }, changes: [] });
    });
  });
}
