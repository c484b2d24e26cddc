import { ancestorsOf, cycleThrough, descendantsOf, inheritedPermissions } from './role-hierarchy';
import { envDecider } from './decider';
import type { EnvCommand } from './commands';
import type { EnvEvent } from '../../events';

const graph: Record<string, string[]> = { editor: ['commenter'], commenter: ['viewer'], viewer: [], admin: ['editor', 'viewer'] };
const extendsOf = (k: string) => graph[k] ?? [];

describe('role hierarchy', () => {
  it('ancestors are what a role extends, transitively; descendants what extends it', () => {
    expect(ancestorsOf('admin', extendsOf)).toEqual(['editor', 'viewer', 'commenter']);
    expect(ancestorsOf('viewer', extendsOf)).toEqual([]);
    expect(descendantsOf('viewer', Object.keys(graph), extendsOf).sort()).toEqual(['admin', 'commenter', 'editor']);
  });

  it('names the cycle a new extends would close, and none when there is none', () => {
    expect(cycleThrough('viewer', ['editor'], extendsOf)).toEqual(['viewer', 'editor', 'commenter', 'viewer']);
    expect(cycleThrough('viewer', ['viewer'], extendsOf)).toEqual(['viewer', 'viewer']);
    expect(cycleThrough('admin', ['editor', 'viewer'], extendsOf)).toBeNull();
  });

  it('inherits permissions within one scope only (same key on another resource is another role)', () => {
    const roles = [
      { key: 'viewer', resource: 'doc', permissions: ['read'], extends: [] },
      { key: 'editor', resource: 'doc', permissions: ['write'], extends: ['viewer'] },
      { key: 'viewer', resource: 'folder', permissions: ['list'], extends: [] },
    ];
    const byScope = inheritedPermissions(roles).map((r) => [r.resource, r.key, [...r.permissions].sort()]);
    expect(byScope).toEqual([
      ['doc', 'viewer', ['read']],
      ['doc', 'editor', ['read', 'write']],
      ['folder', 'viewer', ['list']],
    ]);
  });
});

describe('the decider on extends and role permissions', () => {
  const decide = (commands: EnvCommand[]): EnvEvent[] => {
    let state = envDecider.initialState();
    let last: EnvEvent[] = [];
    for (const c of commands) {
      last = envDecider.decide(c, state);
      for (const e of last) state = envDecider.evolve(state, e);
    }
    return last;
  };
  const base: EnvCommand[] = [
    {
      type: 'CreateResource',
      id: 'r',
      key: 'doc',
      name: 'doc',
      description: '',
      urn: null,
      attributes: [],
      actions: [{ id: 'a', key: 'read', name: 'read', description: '' }],
    },
    { type: 'CreateRole', id: 'v', resource: 'doc', key: 'viewer', name: 'v', description: '', permissions: ['read'], attributes: {} },
    {
      type: 'CreateRole',
      id: 'e',
      resource: 'doc',
      key: 'editor',
      name: 'e',
      description: '',
      permissions: [],
      attributes: {},
      extends: ['viewer'],
    },
  ];

  it('a role delete first removes the role from the extends of others', () => {
    expect(decide([...base, { type: 'DeleteRole', resource: 'doc', role: 'viewer' }]).map((e) => e.type)).toEqual([
      'RoleExtendsReplaced',
      'RoleDeleted',
    ]);
  });

  it('removing a permission the role lacks, or adding one it has, changes nothing', () => {
    expect(decide([...base, { type: 'RemoveRolePermissions', resource: 'doc', role: 'editor', permissions: ['read'] }])).toEqual([]);
    expect(decide([...base, { type: 'AssignRolePermissions', resource: 'doc', role: 'viewer', permissions: ['read'] }])).toEqual([]);
  });

  it('refuses a cycle, naming it', () => {
    expect(() => decide([...base, { type: 'UpdateRole', resource: 'doc', role: 'viewer', extends: ['editor'] }])).toThrow(
      'viewer -> editor -> viewer',
    );
  });
});
