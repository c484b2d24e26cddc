import { authzenAbacInputs, checkOf, mergedEvaluation } from './authzen-questions';

describe('AuthZEN questions as checks', () => {
  it('properties and context become the inputs /allowed sends for set rules; empty parts are left out', () => {
    expect(
      checkOf({
        subject: { id: 'alice', properties: { role: 'admin' } },
        action: { name: 'delete', properties: { soft: true, shift: 'day' } },
        resource: { type: 'record', id: 'r1', properties: { tenant: 'acme', status: 'active' } },
        context: { shift: 'night' },
      }),
    ).toEqual({
      user: 'alice',
      action: 'delete',
      resource: { type: 'record', key: 'r1', tenant: 'acme' },
      // The action's properties are context; the request's context wins on a shared name.
      abac: { user: { role: 'admin' }, resource: { tenant: 'acme', status: 'active' }, context: { soft: true, shift: 'night' } },
    });
    expect(
      checkOf({ subject: { id: 'a', properties: {} }, action: { name: 'r' }, resource: { type: 't', id: 'x' }, context: null }),
    ).toEqual({
      user: 'a',
      action: 'r',
      resource: { type: 't', key: 'x', tenant: 'default' },
    });
    expect(authzenAbacInputs({ subject: { properties: null }, action: {}, resource: null, context: {} })).toBeUndefined();
  });

  it('an evaluation overrides a default entity whole, but for the required members it leaves out', () => {
    const defaults = {
      subject: { type: 'user', id: 'alice', properties: { role: 'admin' } },
      action: { name: 'write' },
      resource: { type: 'record', properties: { status: 'archived' } },
      context: { at: 'top' },
    };
    expect(mergedEvaluation(defaults, { resource: { id: 'r1' }, context: { at: 'own' } })).toEqual({
      ok: true,
      check: {
        user: 'alice',
        action: 'write',
        resource: { type: 'record', key: 'r1', tenant: 'default' },
        abac: { user: { role: 'admin' }, context: { at: 'own' } },
      },
    });
    expect(mergedEvaluation(defaults, { subject: { id: 'bob' }, resource: { type: 'record', id: 'r2' } })).toEqual({
      ok: true,
      check: { user: 'bob', action: 'write', resource: { type: 'record', key: 'r2', tenant: 'default' }, abac: { context: { at: 'top' } } },
    });
    expect(mergedEvaluation(defaults, {})).toEqual({ ok: false, missing: ['resource.id'] });
    expect(mergedEvaluation({}, { subject: { id: 'x' }, action: null })).toEqual({
      ok: false,
      missing: ['subject.type', 'action', 'resource'],
    });
  });
});
