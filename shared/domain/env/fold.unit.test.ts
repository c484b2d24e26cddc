import type { EnvEvent } from '../../events';
import { envDecider } from './decider';
import { evolveEnv } from './fold';
import { envStateData, initialDetailedEnvState, initialEnvState, type EnvState } from './state';

const action = { id: 'a-read', key: 'read', name: 'Read', description: 'reads' };
const events: EnvEvent[] = [
  {
    type: 'ResourceCreated',
    data: { id: 'r-doc', key: 'doc', name: 'Doc', description: 'a doc', actions: [action], attributes: { a: 1 } },
  },
  {
    type: 'RoleCreated',
    data: { id: 'ro-v', key: 'viewer', resource: 'doc', name: 'Viewer', description: 'sees', permissions: ['read'], attributes: { b: 2 } },
  },
  { type: 'TenantCreated', data: { id: 't-acme', key: 'acme', name: 'Acme', description: '', attributes: { c: 3 } } },
  { type: 'UserCreated', data: { id: 'u-al', key: 'alice', email: 'a@x.io', firstName: 'Al', lastName: null, attributes: {} } },
  { type: 'ResourceInstanceCreated', data: { id: 'i-1', key: 'readme', resource: 'doc', tenant: 'acme', attributes: { d: 4 } } },
];
function fold<S extends EnvState>(state: S, list: EnvEvent[]): S {
  for (const event of list) evolveEnv(state, event);
  return state;
}

describe('the environment fold', () => {
  it('keeps each object’s details next to it in a state that asks for them', () => {
    const state = fold(initialDetailedEnvState(), events);
    // An event written before attributes were typed objects: its value reads as a 'json' attribute with a derived id.
    expect(state.details.resources.get('doc')).toEqual({
      name: 'Doc',
      description: 'a doc',
      urn: null,
      actions: [action],
      attributes: [{ id: expect.any(String), key: 'a', type: 'json', description: null }],
      actionGroups: [],
    });
    expect(state.details.roles.get('doc#viewer')).toEqual({ name: 'Viewer', description: 'sees', attributes: { b: 2 } });
    expect(state.details.tenants.get('acme')).toEqual({ name: 'Acme', description: '', attributes: { c: 3 } });
    expect(state.details.users.get('alice')).toEqual({ email: 'a@x.io', firstName: 'Al', lastName: null, attributes: {} });
    expect(state.details.instances.get('doc:readme')).toEqual({ attributes: { d: 4 } });
  });

  it('renames a role only where the update names it, and forgets details with their object', () => {
    const state = fold(initialDetailedEnvState(), [
      ...events,
      { type: 'RoleUpdated', data: { id: 'ro-v', key: 'viewer', resource: 'doc', name: null, description: 'reads', permissions: [] } },
    ]);
    expect(state.details.roles.get('doc#viewer')).toMatchObject({ name: 'Viewer', description: 'reads' });
    expect(state.roles.get('doc#viewer')?.permissions).toEqual([]);

    fold(state, [
      { type: 'ResourceInstanceDeleted', data: { id: 'i-1', key: 'readme', resource: 'doc', tenant: 'acme' } },
      { type: 'RoleDeleted', data: { id: 'ro-v', key: 'viewer', resource: 'doc' } },
      { type: 'TenantDeleted', data: { id: 't-acme', key: 'acme' } },
      { type: 'ResourceDeleted', data: { id: 'r-doc', key: 'doc' } },
    ]);
    const { details } = state;
    expect([details.resources.size, details.roles.size, details.tenants.size, details.instances.size]).toEqual([0, 0, 0, 0]);
    expect(details.users.has('alice')).toBe(true);
  });

  it('folds the command state to the same objects, without details (it stays compact, and so do its snapshots)', () => {
    const detailed = fold(initialDetailedEnvState(), events);
    const command = fold(envDecider.initialState(), events);
    expect(command.details).toBeUndefined();
    expect('details' in envStateData(command)).toBe(false);
    const { details: _details, ...objects } = envStateData(detailed);
    expect(objects).toEqual(envStateData(command));
    expect(envStateData(fold(initialEnvState(), events))).toEqual(envStateData(command));
  });
});
