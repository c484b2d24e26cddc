import { RuleIndex } from '../../shared/read-models/grants/rule-index';

const rule = (onResource: string, role: string, relation: string) => ({ onResource, role, relation });

describe('RuleIndex', () => {
  it('indexes rules by the role they grant, the role they start from, and the tuple shape they follow', () => {
    const index = new RuleIndex([
      { resource: 'file', role: 'editor', rule: rule('folder', 'editor', 'parent') },
      { resource: 'file', role: 'viewer', rule: rule('folder', 'editor', 'parent') },
      { resource: 'folder', role: 'editor', rule: rule('account', 'admin', 'account') },
    ]);
    expect(index.incoming('file', 'editor').map((e) => e.rule)).toEqual([rule('folder', 'editor', 'parent')]);
    expect(index.outgoing('folder', 'editor').map((e) => e.role)).toEqual(['editor', 'viewer']);
    expect(index.along('folder', 'parent', 'file')).toHaveLength(2);
    expect(index.along('folder', 'parent', 'folder')).toEqual([]);
    expect(index.outgoing('file', 'editor')).toEqual([]);
  });

  it('adds once, removes by predicate, and reports whether it changed', () => {
    const index = new RuleIndex();
    expect(index.changed).toBe(false);
    expect(index.add({ resource: 'file', role: 'editor', rule: rule('folder', 'editor', 'parent') })).toBe(true);
    expect(index.add({ resource: 'file', role: 'editor', rule: rule('folder', 'editor', 'parent') })).toBe(false);
    expect(index.changed).toBe(true);
    index.changed = false;
    expect(index.removeWhere((e) => e.role === 'viewer')).toEqual([]);
    expect(index.changed).toBe(false);
    expect(index.removeWhere((e) => e.role === 'editor')).toHaveLength(1);
    expect(index.all()).toEqual([]);
    expect(index.changed).toBe(true);
  });

  it('replaces the rules of one role and returns what was added and removed', () => {
    const index = new RuleIndex([
      { resource: 'file', role: 'editor', rule: rule('folder', 'editor', 'parent') },
      { resource: 'file', role: 'editor', rule: rule('folder', 'owner', 'parent') },
      { resource: 'file', role: 'viewer', rule: rule('folder', 'viewer', 'parent') },
    ]);
    const { added, removed } = index.replace('file', 'editor', [rule('folder', 'owner', 'parent'), rule('folder', 'admin', 'parent')]);
    expect(removed.map((e) => e.rule.role)).toEqual(['editor']);
    expect(added.map((e) => e.rule.role)).toEqual(['admin']);
    expect(
      index
        .incoming('file', 'editor')
        .map((e) => e.rule.role)
        .sort(),
    ).toEqual(['admin', 'owner']);
    expect(index.incoming('file', 'viewer')).toHaveLength(1);
  });
});
