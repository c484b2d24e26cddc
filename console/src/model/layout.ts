/**
 * Lays out an environment's model as a layered graph, without a layout
 * library: one box per resource type (its roles as rows), types ranked by
 * their relations (a relation's subject type above its object type, as a
 * folder above its files), boxes of a rank side by side ordered to follow
 * their parents. Edges: relations between boxes, derivation rules between
 * role rows. Pure, so it is tested without a browser.
 */

export interface ModelRole {
  key: string;
  permissions: string[];
  extends: string[];
  /** Derivation rules giving this role: a user with `role` on an `on_resource` linked by `linked_by_relation`. */
  derivations: Array<{ role: string; on_resource: string; linked_by_relation: string }>;
}

export interface ModelType {
  key: string;
  name: string;
  actions: string[];
  roles: ModelRole[];
  /** Relations whose object is this type: `subject` is the other end. */
  relations: Array<{ key: string; subject: string }>;
}

export interface Box {
  type: string;
  x: number;
  y: number;
  width: number;
  height: number;
  rank: number;
  /** The y of each role row's centre, by role key. */
  rows: Record<string, number>;
}

export interface RelationEdge {
  key: string;
  from: string;
  to: string;
  path: string;
  label: { x: number; y: number };
}

export interface DerivationEdge {
  from: { type: string; role: string };
  to: { type: string; role: string };
  relation: string;
  path: string;
  /** Where the source role row is missing (rule naming an unknown role or type): drawn dashed. */
  dangling: boolean;
}

export interface Layout {
  width: number;
  height: number;
  boxes: Box[];
  relations: RelationEdge[];
  derivations: DerivationEdge[];
}

export const BOX_WIDTH = 240;
export const HEADER = 44;
export const ROW = 22;
const GAP_X = 130;
const GAP_Y = 110;
const MARGIN = 24;

/** Rank of each type: 0 for types that are no relation's object; else one below its deepest subject. Cycles are cut. */
export function ranks(types: ModelType[]): Map<string, number> {
  const byKey = new Map(types.map((t) => [t.key, t]));
  const rank = new Map<string, number>();
  const visiting = new Set<string>();
  const visit = (key: string): number => {
    const known = rank.get(key);
    if (known !== undefined) return known;
    if (visiting.has(key)) return -1;
    visiting.add(key);
    let r = 0;
    for (const rel of byKey.get(key)?.relations ?? []) {
      if (rel.subject === key || !byKey.has(rel.subject)) continue;
      const above = visit(rel.subject);
      if (above >= 0) r = Math.max(r, above + 1);
    }
    visiting.delete(key);
    rank.set(key, r);
    return r;
  };
  for (const t of [...types].sort((a, b) => a.key.localeCompare(b.key))) visit(t.key);
  return rank;
}

export function boxHeight(type: ModelType): number {
  return HEADER + Math.max(1, type.roles.length) * ROW + 10;
}

export function layoutModel(types: ModelType[]): Layout {
  const rankOf = ranks(types);
  const layers: ModelType[][] = [];
  for (const t of types) (layers[rankOf.get(t.key)!] ??= []).push(t);
  const boxes = new Map<string, Box>();
  let y = MARGIN;
  let width = 0;
  layers.forEach((layer, rank) => {
    // Follow the parents: order by the mean x of the boxes above that are their subjects, then by key.
    const meanParentX = (t: ModelType) => {
      const xs = t.relations.map((r) => boxes.get(r.subject)?.x).filter((x): x is number => x !== undefined);
      return xs.length === 0 ? Number.POSITIVE_INFINITY : xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    const ordered = [...layer].sort((a, b) => meanParentX(a) - meanParentX(b) || a.key.localeCompare(b.key));
    const height = Math.max(...ordered.map(boxHeight));
    ordered.forEach((t, i) => {
      const x = MARGIN + i * (BOX_WIDTH + GAP_X);
      const rows: Record<string, number> = {};
      t.roles.forEach((role, r) => (rows[role.key] = y + HEADER + r * ROW + ROW / 2));
      boxes.set(t.key, { type: t.key, x, y, width: BOX_WIDTH, height: boxHeight(t), rank, rows });
      width = Math.max(width, x + BOX_WIDTH + MARGIN);
    });
    y += height + GAP_Y;
  });

  const relations: RelationEdge[] = [];
  const derivations: DerivationEdge[] = [];
  // Derivations into one box each take a lane of their own, further right, so that parallel rules (editor ⇒ editor,
  // viewer ⇒ viewer) do not share their vertical stretch and each can be told apart and clicked.
  for (const t of types) {
    const to = boxes.get(t.key)!;
    t.relations.forEach((rel, i) => {
      const from = boxes.get(rel.subject);
      if (!from) return;
      relations.push({ key: rel.key, from: rel.subject, to: t.key, ...relationPath(from, to, i) });
    });
    let lane = 0;
    for (const role of t.roles) {
      for (const d of role.derivations) {
        const from = boxes.get(d.on_resource);
        const fromY = from?.rows[d.role];
        const toY = to.rows[role.key]!;
        const start = from && fromY !== undefined ? { x: from.x + from.width, y: fromY } : { x: to.x + to.width + 40, y: toY - 30 };
        derivations.push({
          from: { type: d.on_resource, role: d.role },
          to: { type: t.key, role: role.key },
          relation: d.linked_by_relation,
          path: derivationPath(start, { x: to.x + to.width, y: toY }, lane++),
          dangling: !(from && fromY !== undefined),
        });
      }
    }
  }
  // Derivation curves bulge to the right of the boxes: leave room for them.
  const bulge = derivations.length > 0 ? 150 : 0;
  return {
    width: Math.max(width + bulge, 320),
    height: Math.max(y - GAP_Y + MARGIN, 120),
    boxes: [...boxes.values()],
    relations,
    derivations,
  };
}

/** From the subject box's bottom to the object box's top (or around, for a relation within one rank or upwards). */
function relationPath(from: Box, to: Box, index: number): { path: string; label: { x: number; y: number } } {
  const sx = from.x + from.width / 2 + index * 12;
  const tx = to.x + to.width / 2 + index * 12;
  if (from.type === to.type) {
    const x = from.x + 20 + index * 12;
    const top = from.y;
    return { path: `M ${x} ${top} C ${x - 40} ${top - 50}, ${x + 60} ${top - 50}, ${x + 30} ${top}`, label: { x: x + 10, y: top - 40 } };
  }
  if (from.rank < to.rank) {
    const sy = from.y + from.height;
    const ty = to.y;
    const my = (sy + ty) / 2;
    return { path: `M ${sx} ${sy} C ${sx} ${my}, ${tx} ${my}, ${tx} ${ty}`, label: { x: (sx + tx) / 2 + 6, y: my } };
  }
  // Same rank or pointing up (a cycle cut): along the tops.
  const sy = from.y;
  const ty = to.y;
  const top = Math.min(sy, ty) - 40 - index * 10;
  return { path: `M ${sx} ${sy} C ${sx} ${top}, ${tx} ${top}, ${tx} ${ty}`, label: { x: (sx + tx) / 2, y: top + 8 } };
}

/** From the right edge of the source row to the right edge of the target row, bulging right (further for a later lane). */
function derivationPath(a: { x: number; y: number }, b: { x: number; y: number }, lane: number): string {
  const bulge = Math.max(a.x, b.x) + 60 + Math.min(60, Math.abs(b.y - a.y) / 6) + Math.min(lane, 4) * 16;
  return `M ${a.x} ${a.y} C ${bulge} ${a.y}, ${bulge} ${b.y}, ${b.x + 6} ${b.y}`;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Room kept around the drawing's measured bounds: strokes and arrowheads lie outside them. */
export const FIT_PAD = 12;

/**
 * The view box around what was drawn (`drawn`, measured in the page: labels and
 * curves reach past the boxes, above the first rank too) and the scale that
 * fits it in `room`, never above 1: a small model keeps its size, a larger one
 * shrinks until all of it is on screen.
 */
export function fitView(drawn: Rect, room: { width: number; height: number }): { box: Rect; scale: number } {
  const box = { x: drawn.x - FIT_PAD, y: drawn.y - FIT_PAD, width: drawn.width + 2 * FIT_PAD, height: drawn.height + 2 * FIT_PAD };
  const scale = Math.min(1, room.width / box.width, room.height / box.height);
  return { box, scale: scale > 0 ? scale : 1 };
}
