import { startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';
import { loadAuthzenFixture } from './support/authzen-fixture';

/**
 * The OpenID AuthZEN working group's certification scenario for the Authorization API 1.0
 * (openid/authzen, certification/authorization-api-1_0-scenario.md), test by test, on its
 * fixture (support/authzen-fixture.ts). Section numbers are the scenario's.
 */
describe('AuthZEN 1.0 certification scenario', () => {
  let server: TestServer;
  let env: ApiClient;
  const user = (id: string, properties?: object) => ({ type: 'user', id, ...(properties ? { properties } : {}) });
  const record = (id: string, properties?: object) => ({ type: 'record', id, ...(properties ? { properties } : {}) });
  const evaluate = async (body: unknown) => {
    const answer = await env.post('/access/v1/evaluation', body);
    expect([answer.status, answer.headers.get('content-type')]).toEqual([200, 'application/json']);
    return answer.body.decision as boolean;
  };
  const evaluations = async (body: unknown) => {
    const answer = await env.post('/access/v1/evaluations', body);
    expect(answer.status).toBe(200);
    return answer.body;
  };
  /** A request with this raw body and these headers (the key's too). */
  const raw = (path: string, body: string | undefined, headers: Record<string, string>) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${env.key}`, ...headers }, body });

  beforeAll(async () => {
    server = await startTestServer();
    env = await server.api.environmentClient();
    await loadAuthzenFixture(env);
  });
  afterAll(() => server.close());

  describe('Basic (C.2)', () => {
    it('C.2.2: the fixture decisions, core and properties', async () => {
      const read = { name: 'read' };
      const write = { name: 'write' };
      expect(await evaluate({ subject: user('alice'), action: read, resource: record('record-1') })).toBe(true);
      expect(await evaluate({ subject: user('alice'), action: write, resource: record('record-1') })).toBe(true);
      expect(await evaluate({ subject: user('bob'), action: read, resource: record('record-1') })).toBe(true);
      expect(await evaluate({ subject: user('bob'), action: write, resource: record('record-1') })).toBe(false);
      // C.2.2.3: the optional context changes nothing.
      const context = { time: '2025-06-27T18:03-07:00', ip: '192.168.1.1' };
      expect(await evaluate({ subject: user('alice'), action: read, resource: record('record-1'), context })).toBe(true);
      // C.2.2.4-7: properties of the resource, the subject and the action are evaluated.
      expect(await evaluate({ subject: user('alice'), action: write, resource: record('record-2', { status: 'archived' }) })).toBe(false);
      expect(
        await evaluate({ subject: user('bob', { role: 'admin' }), action: write, resource: record('record-2', { status: 'archived' }) }),
      ).toBe(true);
      expect(
        await evaluate({ subject: user('alice'), action: { name: 'delete', properties: { soft: true } }, resource: record('record-1') }),
      ).toBe(true);
      expect(
        await evaluate({ subject: user('alice'), action: { name: 'delete', properties: { soft: false } }, resource: record('record-1') }),
      ).toBe(false);
    });

    it('C.2.2.5: properties sent decide, over the stored ones: a subject that says it is an admin is one for this question', async () => {
      // alice is no admin in the store; the PEP vouches for the property (the spec's trust model).
      expect(await evaluate({ subject: user('alice', { role: 'admin' }), action: { name: 'write' }, resource: record('record-2') })).toBe(
        true,
      );
      expect(await evaluate({ subject: user('bob', { role: 'guest' }), action: { name: 'write' }, resource: record('record-2') })).toBe(
        false,
      );
    });

    it('C.2.2.8-9: more properties than the fixture needs, and unknown members anywhere, are accepted and ignored', async () => {
      expect(
        await evaluate({
          subject: user('alice', { department: 'Sales', role: 'manager' }),
          action: { name: 'read', properties: { method: 'GET' } },
          resource: record('record-1', { status: 'active', owner: 'bob' }),
        }),
      ).toBe(true);
      expect(
        await evaluate({
          subject: { ...user('alice'), nickname: 'al' },
          action: { name: 'read', verb: 'GET' },
          resource: { ...record('record-1'), etag: 'x' },
          foo: 'bar',
          futureField: { nested: true },
        }),
      ).toBe(true);
    });

    it('C.2.4: a missing member or sub-member, a wrong type: 400 with a message naming it', async () => {
      const complete = { subject: user('alice'), action: { name: 'read' }, resource: record('record-1') };
      const cases: Array<[unknown, string]> = [
        [{ ...complete, subject: undefined }, 'subject'],
        [{ ...complete, action: undefined }, 'action'],
        [{ ...complete, resource: undefined }, 'resource'],
        [{ ...complete, subject: { id: 'alice' } }, 'subject.type'],
        [{ ...complete, subject: { type: 'user' } }, 'subject.id'],
        [{ ...complete, action: {} }, 'action.name'],
        [{ ...complete, resource: { id: 'record-1' } }, 'resource.type'],
        [{ ...complete, resource: { type: 'record' } }, 'resource.id'],
        [{ ...complete, subject: 'alice' }, 'subject'],
        [{ ...complete, action: { name: 123 } }, 'action.name'],
        [{ ...complete, subject: { ...user('alice'), properties: 'admin' } }, 'subject.properties'],
        [{ ...complete, context: [1] }, 'context'],
        [[complete], 'body'],
      ];
      for (const [body, named] of cases) {
        const answer = await env.post('/access/v1/evaluation', body);
        expect([named, answer.status, answer.headers.get('content-type')]).toEqual([named, 400, 'application/json']);
        expect([named, typeof answer.body, answer.body]).toEqual([named, 'string', expect.stringContaining(`${named}: `)]);
      }
      // null is leaving an optional member out (the spec asks senders to omit nulls).
      expect(await evaluate({ ...complete, context: null, subject: { ...user('alice'), properties: null } })).toBe(true);
    });

    it('C.2.4.3-5: another content type (or none), malformed JSON, an empty body: 400 on every AuthZEN path', async () => {
      for (const path of [
        '/access/v1/evaluation',
        '/access/v1/evaluations',
        '/access/v1/search/subject',
        '/access/v1/search/resource',
        '/access/v1/search/action',
      ]) {
        const valid = JSON.stringify({ subject: user('alice'), action: { name: 'read' }, resource: record('record-1') });
        const answers = [
          await raw(path, valid, { 'content-type': 'text/plain' }),
          await raw(path, valid, {}),
          await raw(path, valid, { 'content-type': 'application/vnd.api+json' }),
          await raw(path, '{"subject": ', { 'content-type': 'application/json' }),
          await raw(path, '"alice"', { 'content-type': 'application/json' }),
          await raw(path, '', { 'content-type': 'application/json' }),
          await raw(path, undefined, { 'content-type': 'application/json' }),
        ];
        for (const answer of answers) {
          expect([path, answer.status]).toEqual([path, 400]);
          expect(typeof (await answer.json())).toBe('string');
        }
        // A charset other than UTF-8 is refused the same way.
        expect((await raw(path, valid, { 'content-type': 'application/json; charset=latin1' })).status).toBe(400);
        expect((await raw(path, valid, { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
      }
    });

    it('C.2.5: X-Request-ID is echoed; without one, one is made', async () => {
      const body = JSON.stringify({ subject: user('alice'), action: { name: 'read' }, resource: record('record-1') });
      const echoed = await raw('/access/v1/evaluation', body, { 'content-type': 'application/json', 'x-request-id': 'req-42' });
      expect([echoed.status, echoed.headers.get('x-request-id')]).toEqual([200, 'req-42']);
      const refused = await raw('/access/v1/evaluation', '{', { 'content-type': 'application/json', 'X-Request-ID': 'req-43' });
      expect([refused.status, refused.headers.get('x-request-id')]).toEqual([400, 'req-43']);
      const made = await raw('/access/v1/evaluation', body, { 'content-type': 'application/json' });
      expect(made.headers.get('x-request-id')).toEqual(expect.any(String));
    });

    it('C.2.6: the same question, the same decision', async () => {
      for (let i = 0; i < 5; i++)
        expect(await evaluate({ subject: user('bob'), action: { name: 'write' }, resource: record('record-1') })).toBe(false);
    });
  });

  describe('Batch (C.3)', () => {
    it('C.3.2: defaults, fully specified evaluations, properties per evaluation, context inheritance', async () => {
      expect(
        await evaluations({
          subject: user('alice'),
          action: { name: 'read' },
          evaluations: [{ resource: record('record-1') }, { resource: record('record-2') }],
        }),
      ).toEqual({ evaluations: [{ decision: true }, { decision: false }] });
      expect(
        await evaluations({
          subject: user('bob'),
          resource: record('record-1'),
          evaluations: [{ action: { name: 'read' } }, { action: { name: 'write' } }],
        }),
      ).toEqual({ evaluations: [{ decision: true }, { decision: false }] });
      expect(
        await evaluations({
          subject: user('alice'),
          action: { name: 'write' },
          evaluations: [{ resource: record('record-1', { status: 'active' }) }, { resource: record('record-2', { status: 'archived' }) }],
        }),
      ).toEqual({ evaluations: [{ decision: true }, { decision: false }] });
      expect(
        await evaluations({
          action: { name: 'write' },
          resource: record('record-2', { status: 'archived' }),
          evaluations: [{ subject: user('alice') }, { subject: user('bob', { role: 'admin' }) }],
        }),
      ).toEqual({ evaluations: [{ decision: false }, { decision: true }] });
      expect(
        await evaluations({
          evaluations: [
            { subject: user('alice'), action: { name: 'read' }, resource: record('record-1') },
            { subject: user('bob'), action: { name: 'write' }, resource: record('record-1') },
          ],
        }),
      ).toEqual({ evaluations: [{ decision: true }, { decision: false }] });
      // C.3.2.6: the top-level context applies to each evaluation, one of its own replaces it.
      expect(
        await evaluations({
          subject: user('alice'),
          action: { name: 'delete' },
          context: { soft: true },
          evaluations: [{ resource: record('record-1') }, { resource: record('record-2'), context: { source: 'batch-override' } }],
        }),
      ).toEqual({ evaluations: [{ decision: true }, { decision: false }] });
    });

    it('C.3.2.7: an entity in an evaluation takes the required members it leaves out from the default', async () => {
      expect(
        await evaluations({
          subject: user('alice'),
          action: { name: 'write' },
          resource: { type: 'record' },
          evaluations: [
            { resource: { id: 'record-1', properties: { status: 'active' } } },
            { resource: record('record-2', { status: 'archived' }) },
          ],
        }),
      ).toEqual({ evaluations: [{ decision: true }, { decision: false }] });
      // The default's properties are not merged into an evaluation's own entity: it replaces the default whole.
      expect(
        await evaluations({
          subject: user('alice', { role: 'admin' }),
          action: { name: 'write' },
          evaluations: [{ resource: record('record-2') }, { subject: { id: 'alice' }, resource: record('record-2') }],
        }),
      ).toEqual({ evaluations: [{ decision: true }, { decision: false }] });
    });

    it('C.3.4.1: an evaluation missing a member is false with the reason, the others are decided', async () => {
      expect(
        await evaluations({ subject: user('alice'), action: { name: 'read' }, evaluations: [{ resource: record('record-1') }, {}] }),
      ).toEqual({
        evaluations: [
          { decision: true },
          { decision: false, context: { error: { status: 400, message: 'resource: missing in the evaluation and at the top level' } } },
        ],
      });
      // deny_on_first_deny stops at one (an error is a denial).
      expect(
        await evaluations({
          subject: user('alice'),
          action: { name: 'read' },
          options: { evaluations_semantic: 'deny_on_first_deny', unknown_option: 1 },
          evaluations: [{ resource: { type: 'record' } }, { resource: record('record-1') }],
        }),
      ).toEqual({
        evaluations: [
          { decision: false, context: { error: { status: 400, message: 'resource.id: missing in the evaluation and at the top level' } } },
        ],
      });
      // Whole-payload failures stay 400: an ill-typed member anywhere, an unknown semantic.
      expect((await env.post('/access/v1/evaluations', { subject: user('alice'), evaluations: [{ action: 'read' }] })).status).toBe(400);
      expect((await env.post('/access/v1/evaluations', { subject: 'alice', evaluations: [{ action: { name: 'read' } }] })).status).toBe(
        400,
      );
      expect((await env.post('/access/v1/evaluations', { evaluations: {} })).status).toBe(400);
      const semantic = await env.post('/access/v1/evaluations', {
        options: { evaluations_semantic: 'first' },
        evaluations: [{ subject: user('alice'), action: { name: 'read' }, resource: record('record-1') }],
      });
      expect([semantic.status, semantic.body]).toEqual([400, expect.stringContaining('options.evaluations_semantic: ')]);
    });

    it('C.3.4.2-3: without evaluations, or with none, it is one evaluation, answered as /evaluation', async () => {
      const one = { subject: user('alice'), action: { name: 'read' }, resource: record('record-1') };
      expect(await evaluations(one)).toEqual({ decision: true });
      expect(await evaluations({ ...one, evaluations: [] })).toEqual({ decision: true });
      expect(await evaluations({ ...one, evaluations: null })).toEqual({ decision: true });
      expect(await evaluations({ ...one, action: { name: 'delete', properties: { soft: true } }, evaluations: [] })).toEqual({
        decision: true,
      });
      // Then the top level must be complete: 400 naming what it lacks.
      const incomplete = await env.post('/access/v1/evaluations', {
        subject: user('alice'),
        resource: { type: 'record' },
        evaluations: [],
      });
      expect([incomplete.status, incomplete.body]).toEqual([400, expect.stringMatching(/action: .*; resource\.id: /)]);
    });
  });

  describe('Search (C.4)', () => {
    const ids = (body: { results: Array<{ id?: string; name?: string }> }) => body.results.map((r) => r.id ?? r.name).sort();
    const search = async (kind: string, body: unknown) => {
      const answer = await env.post(`/access/v1/search/${kind}`, body);
      expect([kind, answer.status]).toEqual([kind, 200]);
      return answer.body;
    };

    it('C.4.2-4: subject, resource and action searches, core and properties', async () => {
      const subjects = await search('subject', { subject: { type: 'user' }, action: { name: 'read' }, resource: record('record-1') });
      expect(ids(subjects)).toEqual(['alice', 'bob']);
      expect(subjects.results.every((r: { type: string }) => r.type === 'user')).toBe(true);
      expect(
        ids(
          await search('subject', { subject: { type: 'user' }, action: { name: 'read' }, resource: record('record-1'), context: { a: 1 } }),
        ),
      ).toEqual(['alice', 'bob']);
      // An id in the entity searched for is ignored.
      expect(
        ids(await search('subject', { subject: { type: 'user', id: 'carol' }, action: { name: 'read' }, resource: record('record-1') })),
      ).toEqual(['alice', 'bob']);
      expect(
        ids(
          await search('subject', {
            subject: { type: 'user' },
            action: { name: 'write' },
            resource: record('record-2', { status: 'archived' }),
          }),
        ),
      ).toEqual(['bob']);
      expect(
        ids(await search('resource', { subject: user('alice'), action: { name: 'read' }, resource: { type: 'record', id: 'ignored' } })),
      ).toEqual(['record-1']);
      expect(
        ids(await search('resource', { subject: user('bob', { role: 'admin' }), action: { name: 'write' }, resource: { type: 'record' } })),
      ).toEqual(['record-2']);
      // The subject's properties decide: alice, said to be an admin, may write the archived record.
      expect(
        ids(
          await search('resource', { subject: user('alice', { role: 'admin' }), action: { name: 'write' }, resource: { type: 'record' } }),
        ),
      ).toEqual(['record-1', 'record-2']);
      expect(ids(await search('action', { subject: user('alice'), resource: record('record-1') }))).toEqual(['read', 'write']);
      expect(ids(await search('action', { subject: user('alice'), resource: record('record-1'), context: { soft: true } }))).toEqual([
        'delete',
        'read',
        'write',
      ]);
      expect(
        ids(await search('action', { subject: user('bob', { role: 'admin' }), resource: record('record-2', { status: 'archived' }) })),
      ).toEqual(['write']);
    });

    it('C.4.5: page is taken on every search; the subject search pages by token and limit', async () => {
      const asked = { subject: { type: 'user' }, action: { name: 'read' }, resource: record('record-1') };
      const first = await search('subject', { ...asked, page: { limit: 1 } });
      expect(first.results).toHaveLength(1);
      expect(first.page.next_token).toEqual(expect.stringMatching(/.+/));
      const second = await search('subject', { ...asked, page: { token: first.page.next_token, limit: 1 } });
      expect(second.page).toEqual({ next_token: '' });
      expect([...ids(first), ...ids(second)].sort()).toEqual(['alice', 'bob']);
      // The resource and action searches answer everything at once, page or not.
      const all = { next_token: '' };
      expect(
        (await search('resource', { subject: user('alice'), action: { name: 'read' }, resource: { type: 'record' }, page: { limit: 1 } }))
          .page,
      ).toEqual(all);
      expect(
        (await search('action', { subject: user('alice'), resource: record('record-1'), page: { token: 'x', limit: 1 } })).page,
      ).toEqual(all);
      // A token this service did not issue, or one of another search, is a 400 naming page.token.
      const foreign = await env.post('/access/v1/search/subject', { ...asked, page: { token: 'nope' } });
      expect([foreign.status, foreign.body]).toEqual([400, expect.stringContaining('page.token: ')]);
      const moved = await env.post('/access/v1/search/subject', {
        ...asked,
        action: { name: 'write' },
        page: { token: first.page.next_token, limit: 1 },
      });
      expect(moved.status).toBe(400);
      expect((await env.post('/access/v1/search/subject', { ...asked, page: { limit: 'ten' } })).status).toBe(400);
    });

    it('C.4.6: nothing found is an empty list, not an error', async () => {
      expect((await search('action', { subject: user('nonexistent-user'), resource: record('record-1') })).results).toEqual([]);
      expect(
        (await search('resource', { subject: user('alice'), action: { name: 'read' }, resource: { type: 'spaceship' } })).results,
      ).toEqual([]);
      expect((await search('action', { subject: user('alice'), resource: { type: 'spaceship', id: 'x' } })).results).toEqual([]);
    });

    it('C.4.7: a missing member or sub-member of a search is 400', async () => {
      const cases: Array<[string, unknown]> = [
        ['subject', { subject: { type: 'user' }, resource: record('record-1') }],
        ['resource', { action: { name: 'read' }, resource: { type: 'record' } }],
        ['action', { subject: user('alice') }],
        ['subject', { subject: { type: 'user' }, action: { name: 'read' }, resource: { type: 'record' } }],
        ['resource', { subject: { type: 'user' }, action: { name: 'read' }, resource: { type: 'record' } }],
        ['subject', { subject: {}, action: { name: 'read' }, resource: record('record-1') }],
      ];
      for (const [kind, body] of cases) {
        const answer = await env.post(`/access/v1/search/${kind}`, body);
        expect([kind, body, answer.status, typeof answer.body]).toEqual([kind, body, 400, 'string']);
      }
    });
  });

  it('C.6: the discovery document names the endpoints under the base URL the request came to', async () => {
    const answer = await env.get('/.well-known/authzen-configuration');
    expect([answer.status, answer.headers.get('content-type')]).toEqual([200, 'application/json']);
    expect(answer.body).toEqual({
      policy_decision_point: server.url,
      access_evaluation_endpoint: `${server.url}/access/v1/evaluation`,
      access_evaluations_endpoint: `${server.url}/access/v1/evaluations`,
      search_subject_endpoint: `${server.url}/access/v1/search/subject`,
      search_resource_endpoint: `${server.url}/access/v1/search/resource`,
      search_action_endpoint: `${server.url}/access/v1/search/action`,
    });
  });

  it('other APIs keep Permit’s answers: 422 for a bad body, 415 for another media type, unknown fields refused', async () => {
    const bad = await env.post('/allowed', { user: 'alice', action: 'read' });
    expect([bad.status, bad.body.detail[0].loc]).toEqual([422, ['body', 'resource']]);
    expect((await raw('/allowed', '{', { 'content-type': 'application/json' })).status).toBe(422);
    expect((await raw('/allowed', '{}', { 'content-type': 'text/plain' })).status).toBe(415);
    const extra = await env.post('/user-tenants', { user: 'alice', nickname: 'al' });
    expect([extra.status, extra.body.detail[0].type]).toEqual([422, 'extra_forbidden']);
    // 401 and 403 on AuthZEN paths keep the API's error object.
    const unauthorized = await env.withKey('permit_key_wrong').post('/access/v1/evaluation', { subject: user('alice') });
    expect([unauthorized.status, unauthorized.body.error_code]).toEqual([401, 'UNAUTHORIZED']);
  });
});
