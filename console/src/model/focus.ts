/**
 * One rule of the model graph picked out: which boxes, role rows and edges it
 * touches, so the graph can light those and dim the rest. Pure, so it is
 * tested without a browser.
 */
import type { Layout, ModelType } from './layout';

/** A rule as the graph draws it: a derivation edge, a relation edge (by their index in the layout), or a role's `extends`. */
export type Rule =
  { kind: 'derivation'; index: number } | { kind: 'relation'; index: number } | { kind: 'extends'; type: string; role: string };

export interface Focus {
  /** Resource types (boxes) the rule touches. */
  boxes: Set<string>;
  /** Role rows (`type#role`) the rule names; null when it names a whole type (a relation), so its rows stay lit. */
  rows: Set<string> | null;
  relations: Set<number>;
  derivations: Set<number>;
  /** The rule in words, for the caption under the graph. */
  text: string;
}

export const rowId = (type: string, role: string) => `${type}#${role}`;

export const sameRule = (a: Rule | null, b: Rule | null): boolean => JSON.stringify(a) === JSON.stringify(b);

/** What `rule` touches in `layout`; null when the rule is no longer in it (the model was reloaded without it). */
export function focusOf(rule: Rule, layout: Layout, types: ModelType[]): Focus | null {
  if (rule.kind === 'derivation') {
    const d = layout.derivations[rule.index];
    if (!d) return null;
    // The relation the rule follows, drawn between the same two types.
    const relations = layout.relations.flatMap((r, i) => (r.key === d.relation && r.from === d.from.type && r.to === d.to.type ? [i] : []));
    return {
      boxes: new Set([d.from.type, d.to.type]),
      rows: new Set([rowId(d.from.type, d.from.role), rowId(d.to.type, d.to.role)]),
      relations: new Set(relations),
      derivations: new Set([rule.index]),
      text: `${rowId(d.from.type, d.from.role)} ⇒ ${rowId(d.to.type, d.to.role)} via ${d.relation}`,
    };
  }
  if (rule.kind === 'relation') {
    const r = layout.relations[rule.index];
    if (!r) return null;
    return {
      boxes: new Set([r.from, r.to]),
      rows: null,
      relations: new Set([rule.index]),
      derivations: new Set(),
      text: `${r.from} —${r.key}→ ${r.to}`,
    };
  }
  const role = types.find((t) => t.key === rule.type)?.roles.find((r) => r.key === rule.role);
  if (!role || role.extends.length === 0) return null;
  return {
    boxes: new Set([rule.type]),
    rows: new Set([rowId(rule.type, rule.role), ...role.extends.map((e) => rowId(rule.type, e))]),
    relations: new Set(),
    derivations: new Set(),
    text: `${rowId(rule.type, rule.role)} ⊇ ${role.extends.join(', ')}`,
  };
}

/** The class an element of the graph takes under `focus`: none when nothing is picked. */
export function focusClass(focus: Focus | null, lit: boolean): string {
  if (!focus) return '';
  return lit ? ' highlighted' : ' dimmed';
}
