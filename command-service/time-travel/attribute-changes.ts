import { isEventOf, type RecordedEvent } from '../../shared/events';
import type { ReadModels } from '../../shared/read-models/read-models';
import { resourceAttributes, tenantAttributes, userAttributes } from '../grant-queries/set-rules';

/**
 * One attribute a set rule can read (`user.*`, `tenant.*`, `resource.*`) that
 * an event changed: its value before the event and after it, each absent when
 * the attribute was not set then.
 */
export interface AttributeChange {
  of: 'user' | 'tenant' | 'resource';
  /** The user's or tenant's key, or the instance as `type:key`. */
  key: string;
  attribute: string;
  before?: unknown;
  after?: unknown;
}

type Attributes = Record<string, unknown>;

/** Where an event's attributes live: the object it changed and how a check reads that object's attributes. */
function subjectOf(
  event: RecordedEvent,
): { of: AttributeChange['of']; key: string; read: (rm: ReadModels, env: string) => Promise<Attributes | null> } | null {
  if (!isEventOf('env', event)) return null;
  switch (event.type) {
    case 'UserCreated':
    case 'UserUpdated':
    case 'UserDeleted': {
      const { key } = event.data;
      return {
        of: 'user',
        key,
        read: async (rm, env) => {
          const doc = await rm.users.findOne({ environment_id: env, key });
          return doc ? userAttributes(key, doc) : null;
        },
      };
    }
    case 'TenantCreated':
    case 'TenantUpdated':
    case 'TenantDeleted': {
      const { key } = event.data;
      return {
        of: 'tenant',
        key,
        read: async (rm, env) => {
          const doc = await rm.tenants.findOne({ environment_id: env, key });
          return doc ? tenantAttributes(key, doc) : null;
        },
      };
    }
    case 'ResourceInstanceCreated':
    case 'ResourceInstanceUpdated':
    case 'ResourceInstanceDeleted': {
      const { resource, key } = event.data;
      return {
        of: 'resource',
        key: `${resource}:${key}`,
        read: async (rm, env) => {
          const doc = await rm.instances.findOne({ environment_id: env, resource, key });
          return doc ? resourceAttributes(resource, key, doc.tenant, doc.attributes) : null;
        },
      };
    }
    default:
      return null;
  }
}

/**
 * The attributes an event changed, as a check reads them (a user's stored
 * attributes with `email`, `first_name`, `last_name`; a tenant's and an
 * instance's with their built-in fields), compared before and after it. The
 * events carry only the new values, so the old ones are read as of the
 * position before. Empty for an event that changes no such object.
 */
export async function attributeChanges(
  event: RecordedEvent,
  environmentId: string,
  readsAt: (position: number) => ReadModels,
): Promise<AttributeChange[]> {
  const subject = subjectOf(event);
  if (!subject) return [];
  const [before, after] = await Promise.all([
    subject.read(readsAt(event.position - 1), environmentId),
    subject.read(readsAt(event.position), environmentId),
  ]);
  // The object's identity (its key, an instance's type) is not an attribute that changes; and when the
  // object appears or goes, its unset built-in fields (`email: null`) are not news.
  const identity = new Set(subject.of === 'resource' ? ['type', 'key'] : ['key']);
  const appearing = before === null || after === null;
  const names = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])]
    .filter((name) => !identity.has(name) && !(appearing && (before ?? after)?.[name] === null))
    .sort();
  const changes: AttributeChange[] = [];
  for (const attribute of names) {
    const had = before !== null && Object.prototype.hasOwnProperty.call(before, attribute);
    const has = after !== null && Object.prototype.hasOwnProperty.call(after, attribute);
    if (had && has && JSON.stringify(before[attribute]) === JSON.stringify(after[attribute])) continue;
    changes.push({
      of: subject.of,
      key: subject.key,
      attribute,
      ...(had ? { before: before[attribute] } : {}),
      ...(has ? { after: after[attribute] } : {}),
    });
  }
  return changes;
}

/** `department: "legal" → "finance"`; an unset side is `(unset)`. */
export function attributeChangeText(c: AttributeChange): string {
  const value = (present: boolean, v: unknown) => (present ? JSON.stringify(v) : '(unset)');
  return `${c.attribute}: ${value('before' in c, c.before)} → ${value('after' in c, c.after)}`;
}
