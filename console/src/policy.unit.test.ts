import { ApiError, type Api } from './api/client';
import { applyEdit, auditHeaders, changedFields, EditRefused, type Edit, type PolicyRole } from './api/policy';
import { addDerivation, replaceResource, saveMatrix, setRuleInputOf } from './api/policy-edits';
import { conditionsText, toConditions, toRows, valueText } from './model/policy-conditions';

const paths = { schema: '/v2/schema/p/e', facts: '/v2/facts/p/e' };
const role = (key: string, permissions: string[], ext: string[] = []): PolicyRole => ({
  id: key,
  key,
  name: key,
  permissions,
  extends: ext,
  granted_to: { users_with_role: [], when: {} },
});

describe('the condition builder', () => {
  it('turns rows into Permit condition JSON and back, typing values as JSON when they parse', () => {
    const built = {
      combinator: 'allOf' as const,
      rows: [
        { attribute: 'user.department', operator: 'equals', value: 'legal' },
        { attribute: 'user.level', operator: 'greater-than', value: '3' },
        { attribute: 'user.code', operator: 'equals', value: '"7"' },
      ],
    };
    const conditions = toConditions(built);
    expect(conditions).toEqual({
      allOf: [{ 'user.department': { equals: 'legal' } }, { 'user.level': { 'greater-than': 3 } }, { 'user.code': { equals: '7' } }],
    });
    expect(toRows(conditions)).toEqual(built);
    expect(conditionsText(conditions)).toBe('user.department equals "legal" and user.level greater-than 3 and user.code equals "7"');
  });

  it('answers no rows for conditions beyond a list of comparisons, and {} for none', () => {
    expect(toRows({ not: { 'user.a': { equals: 1 } } })).toBeNull();
    expect(toRows({ allOf: [{ anyOf: [] }] })).toBeNull();
    expect(toRows({ allOf: [{ 'user.a': { equals: 1, 'not-equals': 2 } }] })).toBeNull();
    expect(toRows({})).toEqual({ combinator: 'allOf', rows: [] });
    expect(toConditions({ combinator: 'anyOf', rows: [{ attribute: ' ', operator: 'equals', value: 'x' }] })).toEqual({});
    expect(valueText('true')).toBe('"true"');
    expect(valueText(['a'])).toBe('["a"]');
  });
});

describe('edits', () => {
  it('a matrix save is one PATCH per changed role with only what changed, each with its undo', () => {
    const roles = [role('viewer', ['read']), role('editor', ['read'])];
    const edit = saveMatrix(paths, 'doc', roles, [
      { key: 'viewer', permissions: ['read'], extends: [] },
      { key: 'editor', permissions: ['read', 'write'], extends: ['viewer'] },
    ])!;
    expect(edit.calls).toEqual([
      {
        method: 'PATCH',
        path: '/v2/schema/p/e/resources/doc/roles/editor',
        body: { permissions: ['read', 'write'], extends: ['viewer'] },
        undo: { method: 'PATCH', path: '/v2/schema/p/e/resources/doc/roles/editor', body: { permissions: ['read'], extends: [] } },
      },
    ]);
    expect(changedFields(edit.before, edit.after).map((c) => c.field)).toEqual(['editor']);
    expect(saveMatrix(paths, 'doc', roles, [{ key: 'viewer', permissions: ['read'], extends: [] }])).toBeNull();
  });

  it('a type change is one PUT that keeps what the form does not show (description, urn, action names, attribute descriptions)', () => {
    const current = {
      id: 'r',
      key: 'doc',
      name: 'Doc',
      description: 'Documents',
      urn: null,
      actions: { read: { key: 'read', name: 'Read it', description: 'reads' }, write: { key: 'write', name: 'write', description: null } },
      attributes: { owner: { key: 'owner', type: 'string', description: 'who owns it' } },
      roles: [],
      relations: [],
    };
    const edit = replaceResource(paths, current, {
      key: 'doc',
      name: 'Document',
      actions: ['read', 'comment'],
      attributes: [
        { key: 'owner', type: 'string' },
        { key: 'pages', type: 'number' },
      ],
    });
    expect(edit.calls).toEqual([
      {
        method: 'PUT',
        path: '/v2/schema/p/e/resources/doc',
        body: {
          name: 'Document',
          description: 'Documents',
          actions: { read: { name: 'Read it', description: 'reads' }, comment: {} },
          attributes: { owner: { type: 'string', description: 'who owns it' }, pages: { type: 'number' } },
        },
      },
    ]);
    expect(changedFields(edit.before, edit.after).map((c) => c.field)).toEqual(['name', 'actions', 'attributes']);
  });

  it('a derivation states its condition only when asked or when the role has one', () => {
    const rule = { role: 'viewer', on_resource: 'folder', linked_by_relation: 'parent' };
    expect(addDerivation(paths, 'doc', role('viewer', []), rule, false).calls[0]!.body).toEqual(rule);
    const conditioned = addDerivation(paths, 'doc', role('viewer', []), rule, true);
    expect(conditioned.calls[0]!.body).toEqual({ ...rule, when: { no_direct_roles_on_object: true } });
    expect(conditioned.after).toMatchObject({ granted_to: ['viewer on folder via parent'], when: { no_direct_roles_on_object: true } });
  });

  it('a listed set rule names a role or a type when no condition set has its key', () => {
    const sets = [{ id: '1', key: 'legal', name: 'legal', type: 'userset' as const, resource_id: null, conditions: {}, parent_id: null }];
    expect(setRuleInputOf({ key: 'k', user_set: 'legal', permission: 'doc:read', resource_set: 'doc' }, sets)).toEqual({
      user_set: 'legal',
      permission: 'doc:read',
      resource_set: 'doc',
      is_role: false,
      is_resource: true,
    });
  });

  it('sends the reason as X-Audit-Metadata in ASCII, and none without one', () => {
    expect(auditHeaders('  ')).toEqual({});
    const header = auditHeaders('TICKET-1: café')['x-audit-metadata']!;
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    expect(JSON.parse(header)).toEqual({ reason: 'TICKET-1: café' });
  });

  it('takes back the earlier calls of a refused edit, and names one it could not', async () => {
    const sent: string[] = [];
    const refuse = new Set(['PATCH /b']);
    const api = {
      request: async (method: string, path: string) => {
        sent.push(`${method} ${path}`);
        if (refuse.has(`${method} ${path}`)) throw new ApiError(400, 'BAD', 'no such action');
        return { data: null, status: 200, position: 1 };
      },
    } as unknown as Api;
    const edit: Edit = {
      title: 't',
      before: null,
      after: null,
      calls: [
        { method: 'PATCH', path: '/a', undo: { method: 'PATCH', path: '/a-undo' } },
        { method: 'PATCH', path: '/b' },
      ],
    };
    const error = await applyEdit(api, edit, 'r').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EditRefused);
    expect((error as EditRefused).message).toBe('no such action');
    expect((error as EditRefused).leftApplied).toEqual([]);
    expect(sent).toEqual(['PATCH /a', 'PATCH /b', 'PATCH /a-undo']);
    refuse.add('PATCH /a-undo');
    const again = (await applyEdit(api, edit, '').catch((e: unknown) => e)) as EditRefused;
    expect(again.leftApplied.map((c) => c.path)).toEqual(['/a']);
  });
});
