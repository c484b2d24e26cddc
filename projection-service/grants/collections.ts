import type { Collection, CollectionSpec, DocumentStore } from '../../shared/docstore/port';
import type { EdgeDoc, GrantDoc, RulesDoc } from './model';

const grantsSpec: CollectionSpec = {
  name: 'derived_grants',
  fields: ['environment_id', 'user', 'instance', 'resource', 'role', 'tenant', 'from_grant'],
  indexes: [
    // check lookups and /user-permissions pages
    ['environment_id', 'user', 'instance'],
    // holders of roles on an instance: tuple changes, /authorized_users pages
    ['environment_id', 'instance', 'user'],
    // holders of one role: derivation rule changes
    ['environment_id', 'resource', 'role', 'instance'],
    // dependants of a grant: retraction
    ['from_grant', 'instance'],
  ],
};

const edgesSpec: CollectionSpec = {
  name: 'derived_grant_edges',
  fields: ['environment_id', 'subject', 'object'],
  indexes: [
    ['environment_id', 'subject', 'object'],
    ['environment_id', 'object', 'subject'],
  ],
};

const rulesSpec: CollectionSpec = { name: 'derived_grant_rules', fields: ['environment_id'], indexes: [] };

/** The collections of the derived-grants read model, declared on any DocumentStore. */
export class GrantCollections {
  readonly grants: Collection<GrantDoc>;
  readonly edges: Collection<EdgeDoc>;
  readonly rules: Collection<RulesDoc>;

  constructor(store: DocumentStore) {
    this.grants = store.collection<GrantDoc>(grantsSpec);
    this.edges = store.collection<EdgeDoc>(edgesSpec);
    this.rules = store.collection<RulesDoc>(rulesSpec);
  }
}
