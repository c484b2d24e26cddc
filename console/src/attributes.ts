import type { AuditEntry } from './api/types';

/**
 * An object's attributes as a set rule reads them (`user.*`, `tenant.*`,
 * `resource.*`): its stored attributes, and a user's `email`, `first_name`
 * and `last_name` beside them (the service's attribute-changes.ts reads them
 * the same way for the decision history).
 */
export type Attributes = Record<string, unknown>;

export interface AttributeDiff {
  attribute: string;
  /** Absent: not set on that side. */
  before?: unknown;
  after?: unknown;
}

const BUILT_IN: Record<'users' | 'tenants' | 'resource_instances', string[]> = {
  users: ['email', 'first_name', 'last_name'],
  tenants: [],
  resource_instances: [],
};

/** What an audit entry changed attributes of, and where the facts API reads that object: null for other events. */
export function attributeSubject(entry: AuditEntry): { kind: keyof typeof BUILT_IN; id: string } | null {
  const d = entry.data;
  if (entry.type === 'UserUpdated' && typeof d.key === 'string') return { kind: 'users', id: d.key };
  if (entry.type === 'TenantUpdated' && typeof d.key === 'string') return { kind: 'tenants', id: d.key };
  if (entry.type === 'ResourceInstanceUpdated' && typeof d.resource === 'string' && typeof d.key === 'string')
    return { kind: 'resource_instances', id: `${d.resource}:${d.key}` };
  return null;
}

/** A facts document's attributes as a rule reads them (null: the object did not exist then). */
export function attributesOf(kind: keyof typeof BUILT_IN, doc: Record<string, unknown> | null): Attributes | null {
  if (doc === null) return null;
  const own = doc.attributes && typeof doc.attributes === 'object' ? (doc.attributes as Attributes) : {};
  const out: Attributes = { ...own };
  for (const name of BUILT_IN[kind]) if (doc[name] !== null && doc[name] !== undefined) out[name] = doc[name];
  return out;
}

/** Each attribute whose value differs before and after, by name; unchanged ones left out. */
export function diffAttributes(before: Attributes | null, after: Attributes | null): AttributeDiff[] {
  const names = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].sort();
  const out: AttributeDiff[] = [];
  for (const attribute of names) {
    const had = before !== null && Object.prototype.hasOwnProperty.call(before, attribute);
    const has = after !== null && Object.prototype.hasOwnProperty.call(after, attribute);
    if (had && has && JSON.stringify(before[attribute]) === JSON.stringify(after[attribute])) continue;
    out.push({ attribute, ...(had ? { before: before[attribute] } : {}), ...(has ? { after: after[attribute] } : {}) });
  }
  return out;
}

const valueText = (present: boolean, value: unknown) => (!present ? '(unset)' : typeof value === 'string' ? value : JSON.stringify(value));

/** `department: legal → finance`. */
export const diffText = (d: AttributeDiff): string =>
  `${d.attribute}: ${valueText('before' in d, d.before)} → ${valueText('after' in d, d.after)}`;

/** `{a: 1, b: "x"}` → `a=1 b=x` (for a table cell). */
export function attributesText(attributes: unknown): string {
  if (!attributes || typeof attributes !== 'object') return '';
  return Object.entries(attributes as Attributes)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
}
