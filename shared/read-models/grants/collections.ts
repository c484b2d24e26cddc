import type { Collection, CollectionSpec, DocumentStore, Filter, FindOptions } from '../../docstore/port';
import type { InstanceDoc, TupleDoc } from '../read-models';
import type { EdgeDoc, GrantDoc, RulesDoc } from './model';
import { GrantRows, type StoredGrant } from './stored-grants';
import { withFields } from '../../objects';

const grantsSpec: CollectionSpec = {
  name: 'derived_grants',
  // expires_at: null for a grant that never ends (most of them; docs/expiring-access.md).
  fields: ['environment_id', 'user', 'instance', 'resource', 'role', 'tenant', 'from_grant', 'expires_at'],
  indexes: [
    // holders of roles on an instance (tuple changes, /authorized_users pages), and a user's roles on
    // one instance (checks). A user's grants in instance order (/user-permissions pages) are a range
    // of the id index (userGrantIds): an index of their own cost a fan-out much of its time (docs/bench-history/design-choices.md).
    ['environment_id', 'instance', 'user'],
    // No index on from_grant: the retraction finds a grant's dependants through the tuples from
    // its instance (projection-service/grants/retract.ts). The index cost every grant written one
    // more B-tree entry, at a random place (docs/bench-history/design-choices.md).
  ],
  // The most written collection (a fan-out writes 100,000 at once): each field stored once. Every
  // grant holds all of them, as strings (from_grant: null for a direct grant; expires_at absent
  // for a grant without an end reads back as null).
  compact: true,
};

const rulesSpec: CollectionSpec = { name: 'derived_grant_rules', fields: ['environment_id'], indexes: [] };

/** The collections of the derived-grants read model, declared on any DocumentStore. */
export class GrantCollections {
  readonly grants: Collection<GrantDoc>;
  readonly rules: Collection<RulesDoc>;

  constructor(store: DocumentStore) {
    this.grants = new GrantRows(store.collection<StoredGrant>(grantsSpec));
    this.rules = store.collection<RulesDoc>(rulesSpec);
  }
}

/** Reads documents by filter (all the traversal needs of a collection). */
export interface Finder<T> {
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
}

/** The facts read model's instances, read as their keys only. */
export function instanceKeys(instances: Collection<InstanceDoc>): Finder<{ id: string; key: string }> {
  return {
    find: (filter, options = {}) => instances.find(filter, withFields(options, { fields: ['key'] })),
  };
}

const edgeFields = ['environment_id', 'subject', 'relation', 'object', 'tenant', 'expires_at'];

/**
 * The relationship tuples of the facts read model, read as edges: only the
 * columns traversal needs, not the whole documents. The facts projection runs
 * before this one, so they are current; their indexes `(environment_id,
 * subject, object)` and `(environment_id, object, subject)` serve the keyset
 * pages both ways. (This projection used to keep its own copy of every tuple.)
 */
export function tupleEdges(tuples: Collection<TupleDoc>): Finder<EdgeDoc> {
  return {
    find: (filter, options = {}) => tuples.find(filter, withFields(options, { fields: edgeFields })),
  };
}
