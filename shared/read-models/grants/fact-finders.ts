/**
 * What the grants projection and queries read of the facts read model (its tuples as edges, its
 * instances as keys). The grants themselves are a domain store: shared/read-stores/grants/.
 */
import type { Collection, Filter, FindOptions } from '../../docstore/port';
import type { InstanceDoc, TupleDoc } from '../read-models';
import type { EdgeDoc } from './model';
import { withFields } from '../../objects';

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
