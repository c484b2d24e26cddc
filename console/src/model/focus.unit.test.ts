import { focusClass, focusOf, sameRule } from './focus';
import { FIT_PAD, fitView, layoutModel, type ModelType } from './layout';

const role = (key: string, extra: Partial<ModelType['roles'][number]> = {}): ModelType['roles'][number] => ({
  key,
  permissions: ['read'],
  extends: [],
  derivations: [],
  ...extra,
});

/** The seed's folder/file example, with an owner that extends the editor. */
const types: ModelType[] = [
  { key: 'folder', name: 'Folder', actions: ['read'], relations: [], roles: [role('editor'), role('viewer')] },
  {
    key: 'file',
    name: 'File',
    actions: ['read'],
    relations: [{ key: 'parent', subject: 'folder' }],
    roles: [
      role('editor', { derivations: [{ role: 'editor', on_resource: 'folder', linked_by_relation: 'parent' }] }),
      role('viewer', { derivations: [{ role: 'viewer', on_resource: 'folder', linked_by_relation: 'parent' }] }),
      role('owner', { extends: ['editor', 'viewer'] }),
    ],
  },
];
const layout = layoutModel(types);

describe('one rule of the model graph isolated', () => {
  it('a derivation touches its two rows, their boxes and the relation it follows', () => {
    const index = layout.derivations.findIndex((d) => d.to.role === 'viewer');
    const focus = focusOf({ kind: 'derivation', index }, layout, types)!;
    expect([...focus.rows!]).toEqual(['folder#viewer', 'file#viewer']);
    expect([...focus.boxes]).toEqual(['folder', 'file']);
    expect([...focus.derivations]).toEqual([index]);
    expect([...focus.relations].map((i) => layout.relations[i]!.key)).toEqual(['parent']);
    expect(focus.text).toBe('folder#viewer ⇒ file#viewer via parent');
  });

  it('a relation touches its two types whole and no derivation', () => {
    const focus = focusOf({ kind: 'relation', index: 0 }, layout, types)!;
    expect(focus.rows).toBeNull();
    expect([...focus.boxes]).toEqual(['folder', 'file']);
    expect(focus.derivations.size).toBe(0);
    expect(focus.text).toBe('folder —parent→ file');
  });

  it("a role's extends touches the role and the roles it extends, in its own box", () => {
    const focus = focusOf({ kind: 'extends', type: 'file', role: 'owner' }, layout, types)!;
    expect([...focus.rows!]).toEqual(['file#owner', 'file#editor', 'file#viewer']);
    expect([...focus.boxes]).toEqual(['file']);
    expect(focus.relations.size + focus.derivations.size).toBe(0);
    expect(focus.text).toBe('file#owner ⊇ editor, viewer');
  });

  it('a rule no longer in the model isolates nothing', () => {
    expect(focusOf({ kind: 'derivation', index: 9 }, layout, types)).toBeNull();
    expect(focusOf({ kind: 'relation', index: 1 }, layout, types)).toBeNull();
    expect(focusOf({ kind: 'extends', type: 'file', role: 'editor' }, layout, types)).toBeNull();
  });

  it('lights or dims only while a rule is picked, and knows the same rule again', () => {
    const focus = focusOf({ kind: 'relation', index: 0 }, layout, types);
    expect([focusClass(null, false), focusClass(focus, true), focusClass(focus, false)]).toEqual(['', ' highlighted', ' dimmed']);
    expect(sameRule({ kind: 'relation', index: 0 }, { kind: 'relation', index: 0 })).toBe(true);
    expect(sameRule({ kind: 'relation', index: 0 }, { kind: 'derivation', index: 0 })).toBe(false);
    expect(sameRule(null, { kind: 'relation', index: 0 })).toBe(false);
  });

  it('parallel derivations into one box take separate lanes', () => {
    const [editor, viewer] = layout.derivations.map((d) => Number(d.path.split(' ')[4]));
    expect(viewer! - editor!).toBe(16);
  });
});

describe('the graph fitted to its room', () => {
  const drawn = { x: -20, y: -30, width: 976, height: 476 };

  it('keeps a drawing that fits at its own size, framed by what was drawn plus a margin', () => {
    expect(fitView(drawn, { width: 2000, height: 2000 })).toEqual({
      box: { x: -20 - FIT_PAD, y: -30 - FIT_PAD, width: 976 + 2 * FIT_PAD, height: 476 + 2 * FIT_PAD },
      scale: 1,
    });
  });

  it('scales a larger one down by its tighter side', () => {
    expect(fitView(drawn, { width: 500, height: 2000 }).scale).toBeCloseTo(0.5);
    expect(fitView(drawn, { width: 2000, height: 250 }).scale).toBeCloseTo(0.5);
  });

  it('never answers a scale that would hide the graph', () => {
    expect(fitView(drawn, { width: 0, height: 0 }).scale).toBe(1);
  });
});
