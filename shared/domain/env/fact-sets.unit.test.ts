import { deserialize, serialize } from 'node:v8';
import type { EnvEvent } from '../../events';
import { envDecider } from './decider';
import { randomUUID } from 'node:crypto';
import { AssignmentSet, IdSlab, TupleSet, emptyIdSlab } from './fact-sets';
import { scratchOf } from './scratch';
import type { EnvState } from './state';

const attrs = {};
const action = (key: string) => ({ id: `a-${key}`, key, name: key, description: '' });
const tenant = (key: string): EnvEvent => ({
  type: 'TenantCreated',
  data: { id: `t-${key}`, key, name: key, description: '', attributes: attrs },
});
const instance = (resource: string, key: string, tenantKey = 'acme'): EnvEvent => ({
  type: 'ResourceInstanceCreated',
  data: { id: `i-${resource}-${key}`, key, resource, tenant: tenantKey, attributes: attrs },
});
const world: EnvEvent[] = [
  {
    type: 'ResourceCreated',
    data: { id: 'r-folder', key: 'folder', name: 'Folder', description: '', actions: [action('read')], attributes: attrs },
  },
  {
    type: 'ResourceCreated',
    data: { id: 'r-file', key: 'file', name: 'File', description: '', actions: [action('read')], attributes: attrs },
  },
  {
    type: 'RoleCreated',
    data: { id: 'ro-fv', key: 'viewer', resource: 'folder', name: 'Viewer', description: '', permissions: ['read'], attributes: attrs },
  },
  {
    type: 'RoleCreated',
    data: { id: 'ro-admin', key: 'admin', resource: null, name: 'Admin', description: '', permissions: ['folder:read'], attributes: attrs },
  },
  {
    type: 'RelationCreated',
    data: { id: 'rel-parent', key: 'parent', name: 'Parent', description: '', objectResource: 'file', subjectResource: 'folder' },
  },
  tenant('acme'),
  tenant('beta'),
  instance('folder', 'f1'),
  instance('folder', 'f10'),
  instance('file', 'd1'),
  { type: 'UserCreated', data: { id: 'u-bob', key: 'bob', email: null, firstName: null, lastName: null, attributes: attrs } },
  { type: 'RelationshipTupleCreated', data: { id: 'tu1', subject: 'folder:f1', relation: 'parent', object: 'file:d1', tenant: 'acme' } },
  { type: 'RelationshipTupleCreated', data: { id: 'tu10', subject: 'folder:f10', relation: 'parent', object: 'file:d1', tenant: 'acme' } },
  {
    type: 'RoleAssigned',
    data: { id: 'as1', user: 'bob', role: 'viewer', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:f1' },
  },
  {
    type: 'RoleAssigned',
    data: { id: 'as10', user: 'bob', role: 'viewer', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:f10' },
  },
  { type: 'RoleAssigned', data: { id: 'as-admin', user: 'bob', role: 'admin', resource: null, tenant: 'beta', resourceInstance: null } },
];
const fold = (events: EnvEvent[]): EnvState => events.reduce((s, e) => envDecider.evolve(s, e), envDecider.initialState());

describe('compact tuples and assignments', () => {
  it('gives back every field of what was folded in', () => {
    const state = fold(world);
    expect([...state.tuples.values()]).toEqual([
      { id: 'tu1', subject: 'folder:f1', relation: 'parent', object: 'file:d1', tenant: 'acme' },
      { id: 'tu10', subject: 'folder:f10', relation: 'parent', object: 'file:d1', tenant: 'acme' },
    ]);
    expect([...state.assignments.values()]).toEqual([
      { id: 'as1', user: 'bob', role: 'viewer', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:f1' },
      { id: 'as10', user: 'bob', role: 'viewer', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:f10' },
      { id: 'as-admin', user: 'bob', role: 'admin', resource: null, tenant: 'beta', resourceInstance: null },
    ]);
  });

  it('keeps one string per fact: key → id', () => {
    const state = fold(world);
    expect([...state.tuples.ids]).toEqual([
      ['folder:f1|parent|file:d1', 'tu1'],
      ['folder:f10|parent|file:d1', 'tu10'],
    ]);
    expect(state.tuples.tenants.size).toBe(0);
    expect(state.assignments.ids.get('bob|admin||beta|')).toBe('as-admin');
  });

  it("keeps a folded tuple's own tenant when it is not its subject instance's", () => {
    const state = fold([
      ...world,
      {
        type: 'RelationshipTupleCreated',
        data: { id: 'odd', subject: 'folder:f1', relation: 'parent', object: 'file:d9', tenant: 'beta' },
      },
    ]);
    expect(state.tuples.get('folder:f1|parent|file:d9')).toEqual({
      id: 'odd',
      subject: 'folder:f1',
      relation: 'parent',
      object: 'file:d9',
      tenant: 'beta',
    });
    state.tuples.delete('folder:f1|parent|file:d9');
    expect(state.tuples.tenants.size).toBe(0);
  });

  it('finds the facts of one instance by exact ref (f1 is not f10)', () => {
    const state = fold(world);
    expect([...state.tuples.keysTouching('folder:f1')]).toEqual(['folder:f1|parent|file:d1']);
    expect([...state.tuples.keysTouching('file:d1')]).toHaveLength(2);
    expect([...state.assignments.keysOnInstance('folder:f1')]).toEqual(['bob|viewer|folder|acme|folder:f1']);
  });

  it('deleting an instance emits its tuples and assignments with every field', () => {
    const events = envDecider.decide({ type: 'DeleteInstance', instance: 'folder:f1' }, fold(world));
    expect(events).toEqual([
      {
        type: 'RelationshipTupleDeleted',
        data: { id: 'tu1', subject: 'folder:f1', relation: 'parent', object: 'file:d1', tenant: 'acme' },
      },
      {
        type: 'RoleUnassigned',
        data: { id: 'as1', user: 'bob', role: 'viewer', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:f1' },
      },
      { type: 'ResourceInstanceDeleted', data: { id: 'i-folder-f1', key: 'f1', resource: 'folder', tenant: 'acme' } },
    ]);
  });

  it('a scratch takes tuple tenants from its own instances and leaves the base untouched', () => {
    const base = fold(world);
    const scratch = scratchOf(base);
    envDecider.evolve(scratch, instance('folder', 'f2', 'beta'));
    envDecider.evolve(scratch, {
      type: 'RelationshipTupleCreated',
      data: { id: 'tu2', subject: 'folder:f2', relation: 'parent', object: 'file:d2', tenant: 'beta' },
    });
    expect(scratch.tuples.get('folder:f2|parent|file:d2')?.tenant).toBe('beta');
    expect(scratch.tuples.tenants.size).toBe(0);
    expect(base.tuples.size).toBe(2);
    expect(base.instances.has('folder:f2')).toBe(false);
  });

  it('survives a snapshot round trip and decides the same afterwards', () => {
    const state = fold(world);
    const restored = envDecider.snapshot!.fromData(deserialize(serialize(envDecider.snapshot!.toData(state))));
    expect(restored.tuples).toBeInstanceOf(TupleSet);
    expect(restored.assignments).toBeInstanceOf(AssignmentSet);
    for (const command of [
      { type: 'DeleteInstance', instance: 'file:d1' },
      { type: 'UnassignRole', user: 'bob', role: 'admin', tenant: 'beta', resourceInstance: null },
      { type: 'CreateTuple', id: 'new', subject: 'folder:f1', relation: 'parent', object: 'file:d1', tenant: null },
    ] as const) {
      const decide = (s: EnvState) => {
        try {
          return envDecider.decide(command, s);
        } catch (error) {
          return (error as Error).message;
        }
      };
      expect(decide(restored)).toEqual(decide(state));
    }
  });

  it('keeps UUID ids as 16-byte slots and gives them back exactly; other ids stay strings', () => {
    const slab = new IdSlab(emptyIdSlab());
    const uuids = Array.from({ length: 3000 }, () => randomUUID()); // beyond the first 1,024 slots: the slab grows
    const stored = uuids.map((id) => slab.store(id));
    expect(stored.every((s) => typeof s === 'number')).toBe(true);
    expect(stored.map((s) => slab.read(s))).toEqual(uuids);
    expect(slab.store('tu1')).toBe('tu1');
    const upper = randomUUID().toUpperCase();
    expect(slab.store(upper)).toBe(upper); // would not read back in the same case
    slab.release(stored[5]!);
    const again = randomUUID();
    expect(slab.store(again)).toBe(stored[5]);
    expect(slab.read(stored[5]!)).toBe(again);
    expect(slab.data.used).toBe(3000);
  });

  it("a scratch never writes the state's slab: a refused bulk leaves it as it was", () => {
    const id = () => randomUUID();
    const state = fold([
      ...world,
      {
        type: 'RelationshipTupleCreated',
        data: { id: 'ignored', subject: 'folder:f10', relation: 'parent', object: 'file:d2', tenant: 'acme' },
      },
    ]);
    envDecider.evolve(state, {
      type: 'RelationshipTupleDeleted',
      data: { id: 'ignored', subject: 'folder:f10', relation: 'parent', object: 'file:d2', tenant: 'acme' },
    });
    const uuid = id();
    envDecider.evolve(state, {
      type: 'RelationshipTupleCreated',
      data: { id: uuid, subject: 'folder:f10', relation: 'parent', object: 'file:d3', tenant: 'acme' },
    });
    const slab = (state.tuples.idStore as IdSlab).data;
    const before = { bytes: Buffer.from(slab.bytes), used: slab.used, free: [...slab.free] };
    const scratch = scratchOf(state);
    envDecider.evolve(scratch, {
      type: 'RelationshipTupleDeleted',
      data: { id: uuid, subject: 'folder:f10', relation: 'parent', object: 'file:d3', tenant: 'acme' },
    });
    const added = id();
    envDecider.evolve(scratch, {
      type: 'RelationshipTupleCreated',
      data: { id: added, subject: 'folder:f1', relation: 'parent', object: 'file:d3', tenant: 'acme' },
    });
    expect(scratch.tuples.get('folder:f1|parent|file:d3')?.id).toBe(added);
    expect({ bytes: Buffer.from(slab.bytes), used: slab.used, free: [...slab.free] }).toEqual(before);
    expect(state.tuples.get('folder:f10|parent|file:d3')?.id).toBe(uuid);
  });

  it('a snapshot keeps the slab: UUID ids read back after the round trip', () => {
    const uuid = randomUUID();
    const state = fold([
      ...world,
      {
        type: 'RoleAssigned',
        data: { id: uuid, user: 'amy', role: 'viewer', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:f1' },
      },
    ]);
    const restored = envDecider.snapshot!.fromData(deserialize(serialize(envDecider.snapshot!.toData(state))));
    expect(restored.assignments.get('amy|viewer|folder|acme|folder:f1')?.id).toBe(uuid);
    expect(typeof restored.assignments.ids.get('amy|viewer|folder|acme|folder:f1')).toBe('number');
  });

  it("reads back a user key that holds '|' (user keys are any string), and cascades its assignments", () => {
    const state = fold([
      ...world,
      {
        type: 'RoleAssigned',
        data: { id: 'as-odd', user: 'a|b|c', role: 'viewer', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:f10' },
      },
    ]);
    expect(state.assignments.get('a|b|c|viewer|folder|acme|folder:f10')).toEqual({
      id: 'as-odd',
      user: 'a|b|c',
      role: 'viewer',
      resource: 'folder',
      tenant: 'acme',
      resourceInstance: 'folder:f10',
    });
    const events = envDecider.decide({ type: 'DeleteRole', resource: 'folder', role: 'viewer' }, state);
    expect(events.filter((e) => e.type === 'RoleUnassigned').map((e) => e.data)).toContainEqual({
      id: 'as-odd',
      user: 'a|b|c',
      role: 'viewer',
      resource: 'folder',
      tenant: 'acme',
      resourceInstance: 'folder:f10',
    });
  });
});
