import type { SealedSecret } from '../secrets/sealed-secret';
import type { Collection, CollectionSpec, DocumentStore } from '../docstore/port';
import type { AttributeType } from '../events';
import { canonicalId } from '../ids';
import { historySpec, type Version } from './history/versions';
import { Versioning } from './history/versioning';

/**
 * The read models, stored as the documents the API returns (Permit v2 read
 * shapes), with internal fields prefixed by `_` (never sent to clients).
 */

export interface EnvScoped {
  id: string;
  organization_id: string;
  project_id: string;
  environment_id: string;
  created_at: string;
  updated_at: string;
}
export interface OrganizationDoc {
  id: string;
  key: string;
  name: string;
  created_at: string;
  updated_at: string;
}
export interface ProjectDoc {
  id: string;
  key: string;
  organization_id: string;
  name: string;
  description: string | null;
  urn_namespace: string | null;
  settings: Record<string, unknown>;
  active_policy_repo_id: string | null;
  created_at: string;
  updated_at: string;
}
export interface EnvironmentDoc {
  id: string;
  key: string;
  organization_id: string;
  project_id: string;
  name: string;
  description: string | null;
  custom_branch_name: string | null;
  jwks: Record<string, unknown>;
  settings: Record<string, unknown>;
  avp_policy_store_id: string | null;
  created_at: string;
  updated_at: string;
}
export interface ApiKeyDoc {
  id: string;
  organization_id: string;
  project_id: string | null;
  environment_id: string | null;
  object_type: 'org' | 'project' | 'env';
  access_level: 'admin' | 'write' | 'read';
  owner_type: 'member';
  name: string;
  created_at: string;
  _secret_hash: string;
}
/** An action of a resource (ActionBlockRead), in the resource's `actions`. */
export interface ActionBlockDoc {
  id: string;
  key: string;
  name: string;
  description: string | null;
}
/** An attribute of a resource (AttributeBlockRead), in the resource's `attributes`. */
export interface AttributeBlockDoc {
  id: string;
  key: string;
  type: AttributeType;
  description: string | null;
}
export interface ActionGroupBlockDoc {
  id: string;
  key: string;
  name: string;
  description: string | null;
  actions: string[];
  created_at: string;
  updated_at: string;
}
export interface ResourceDoc extends EnvScoped {
  key: string;
  name: string;
  description: string | null;
  urn: string | null;
  actions: Record<string, ActionBlockDoc & { created_at?: string; updated_at?: string }>;
  attributes: Record<string, AttributeBlockDoc & { created_at?: string; updated_at?: string }>;
  /** The groups' full definitions (ResourceActionGroupRead); the API shows `action_groups` as key → actions. */
  _action_groups?: Record<string, ActionGroupBlockDoc>;
  roles: Record<string, unknown>;
  relations: Record<string, { resource_id: string; resource: string }>;
  action_groups: Record<string, string[]>;
}
export interface DerivedRoleRuleDoc {
  role_id: string;
  resource_id: string;
  relation_id: string;
  role: string;
  on_resource: string;
  linked_by_relation: string;
}
export interface RoleDoc extends EnvScoped {
  key: string;
  name: string;
  description: string | null;
  permissions: string[];
  attributes: Record<string, unknown>;
  extends: string[];
  granted_to: { id: string; users_with_role: DerivedRoleRuleDoc[]; when: Record<string, unknown> };
  /** Present on resource roles only. */
  resource_id?: string;
  resource?: string;
}
export interface RelationDoc extends EnvScoped {
  key: string;
  name: string;
  description: string | null;
  subject_resource: string;
  subject_resource_id: string;
  object_resource: string;
  object_resource_id: string;
}
export interface TenantDoc extends EnvScoped {
  key: string;
  name: string;
  description: string | null;
  attributes: Record<string, unknown>;
  last_action_at: string;
}
export interface UserDoc extends EnvScoped {
  key: string;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  attributes: Record<string, unknown>;
  roles: Array<{ role: string; tenant: string }>;
  /** Permit's `associated_tenants`, kept with `roles` (see `associatedTenants`); absent on documents written before it was kept. */
  associated_tenants?: Array<{ tenant: string; roles: string[]; status: 'active' }>;
}

/**
 * Permit's `associated_tenants` of a user: its top-level roles grouped by
 * tenant, tenants in the order their first role was assigned. `status` is
 * `active`: users here never sign in, so none is pending an invite.
 */
export function associatedTenants(roles: UserDoc['roles']): NonNullable<UserDoc['associated_tenants']> {
  const byTenant = new Map<string, string[]>();
  for (const { role, tenant } of roles) {
    const held = byTenant.get(tenant);
    if (held) held.push(role);
    else byTenant.set(tenant, [role]);
  }
  return [...byTenant].map(([tenant, held]) => ({ tenant, roles: held, status: 'active' as const }));
}
export interface InstanceDoc extends EnvScoped {
  key: string;
  resource: string;
  resource_id: string;
  tenant: string;
  tenant_id: string;
  attributes: Record<string, unknown>;
}
export interface AssignmentDoc {
  id: string;
  user: string;
  role: string;
  tenant: string;
  resource_instance: string | null;
  resource_instance_id: string | null;
  user_id: string;
  role_id: string;
  tenant_id: string;
  organization_id: string;
  project_id: string;
  environment_id: string;
  created_at: string;
  /** When the assignment ends (an ISO instant, UTC); null: never. */
  expires_at: string | null;
  /** expires_at, or NEVER_ENDS for none (in-force.ts): absent from what the API reads. */
  _ends?: string;
  /** Resource type of the role (null for a top-level role). */
  _resource: string | null;
}
export interface TupleDoc extends EnvScoped {
  subject: string;
  relation: string;
  object: string;
  subject_id: string;
  relation_id: string;
  object_id: string;
  tenant: string;
  tenant_id: string;
  /** When the tuple ends (an ISO instant, UTC); null: never. */
  expires_at: string | null;
  /** As AssignmentDoc's. */
  _ends?: string;
}

/**
 * An assignment or a tuple that has an end (docs/expiring-access.md), by the fact's id: what the
 * expiry scheduler reads to learn which environments have ends due, in the order of the ends.
 */
export interface FactEndDoc {
  id: string;
  environment_id: string;
  kind: 'assignment' | 'tuple';
  expires_at: string;
}

/** Permit's ConditionSetRead (ABAC, docs/abac.md). */
export interface ConditionSetDoc extends EnvScoped {
  key: string;
  type: 'userset' | 'resourceset';
  autogenerated: boolean;
  resource_id: string | null;
  /** The resource type's key, for a resource set (internal: Permit nests the resource). */
  _resource: string | null;
  name: string;
  description: string;
  conditions: Record<string, unknown>;
  parent_id: string | null;
  _parent: string | null;
}
/** Permit's ConditionSetRuleRead; user_set / resource_set are keys (of a set, a top-level role, or a resource type). */
export interface SetRuleDoc extends EnvScoped {
  key: string;
  user_set: string;
  permission: string;
  resource_set: string;
  _user_set_is_role: boolean;
  _resource_set_is_resource: boolean;
}

/** Permit's MappingRule, as a proxy config's read shows it. */
export interface MappingRuleDoc {
  url: string;
  url_type: 'regex' | null;
  http_method: string;
  resource: string;
  headers: Record<string, string>;
  action: string | null;
  priority: number | null;
}
/**
 * Permit's ProxyConfigRead, and `proxied: false`: this service stores proxy configs and proxies
 * nothing. `secret` stays sealed at rest, as in the log: the HTTP read opens it (SecretBox).
 */
export interface ProxyConfigDoc extends EnvScoped {
  key: string;
  name: string;
  auth_mechanism: 'Bearer' | 'Basic' | 'Headers';
  secret: SealedSecret;
  mapping_rules: MappingRuleDoc[];
  proxied: false;
}

/** Permit's ElementsUserInviteRead; the role, tenant and instance are also kept by key (internal), as the log names them. */
export interface UserInviteDoc extends EnvScoped {
  key: string;
  status: 'pending' | 'approved';
  email: string;
  first_name: string | null;
  last_name: string | null;
  role_id: string;
  tenant_id: string;
  resource_instance_id: string | null;
  _role: string;
  /** The role's resource type; null for a top-level role. */
  _role_resource: string | null;
  _tenant: string;
  _resource_instance: string | null;
}

/**
 * The collections. Those the history versions (every environment-scoped one) declare `_from`: the
 * position their current document became true at (history/versions.ts); null where the history is
 * not kept (a compact collection's documents then read it back as null).
 */
const specs = {
  organizations: { name: 'organizations', fields: ['key'], indexes: [['key']] },
  projects: { name: 'projects', fields: ['organization_id', 'key'], indexes: [['organization_id', 'key']] },
  environments: { name: 'environments', fields: ['organization_id', 'project_id', 'key'], indexes: [['project_id', 'key']] },
  apiKeys: { name: 'api_keys', fields: ['_secret_hash', 'organization_id'], indexes: [['_secret_hash']] },
  resources: { name: 'resources', fields: ['environment_id', 'key', '_from'], indexes: [['environment_id', 'key']] },
  resourceRoles: {
    name: 'resource_roles',
    fields: ['environment_id', 'resource', 'key', '_from'],
    indexes: [['environment_id', 'resource', 'key']],
  },
  roles: { name: 'roles', fields: ['environment_id', 'key', '_from'], indexes: [['environment_id', 'key']] },
  relations: {
    name: 'relations',
    fields: ['environment_id', 'object_resource', 'key', '_from'],
    indexes: [['environment_id', 'object_resource', 'key']],
  },
  tenants: { name: 'tenants', fields: ['environment_id', 'key', '_from'], indexes: [['environment_id', 'key']] },
  users: { name: 'users', fields: ['environment_id', 'key', '_from'], indexes: [['environment_id', 'key']] },
  instances: {
    name: 'resource_instances',
    fields: ['environment_id', 'resource', 'tenant', 'key', '_from'],
    indexes: [
      ['environment_id', 'resource', 'key'],
      ['environment_id', 'tenant'],
    ],
  },
  assignments: {
    name: 'role_assignments',
    // In document order: a compact collection reads id and these first.
    // `_ends`: expires_at, or a far instant for none (in-force.ts), which reads in force at an instant narrow on.
    fields: ['user', 'role', 'tenant', 'resource_instance', 'environment_id', 'expires_at', '_ends', '_from'],
    indexes: [
      // The check's tenant-role lookup names all four: matching it exactly keeps SQLite from
      // choosing (environment_id, tenant) without statistics and scanning a whole tenant.
      ['environment_id', 'user', 'tenant', 'resource_instance'],
      ['environment_id', 'role'],
      ['environment_id', 'resource_instance'],
      ['environment_id', 'tenant'],
      // No index on expires_at: `expires_before` narrows what an environment index selects. One
      // led SQLite to plan the unfiltered list on it, in another order than before (the expiry
      // scheduler reads the ends of its own collection: docs/expiring-access.md).
    ],
    // Written for every assignment; every document holds these fields (resource_instance null for a tenant role).
    compact: true,
  },
  tuples: {
    name: 'relationship_tuples',
    // In document order: a compact collection reads id and these first.
    fields: ['subject', 'relation', 'object', 'tenant', 'environment_id', 'expires_at', '_ends', '_from'],
    indexes: [
      // Also the derived-grants traversal's: a subject's tuples in object order (keyset pages over a
      // large fan-out) and an object's tuples in subject order; they serve the listing filters too.
      ['environment_id', 'subject', 'object'],
      ['environment_id', 'object', 'subject'],
      ['environment_id', 'relation'],
    ],
    // Written for every tuple (a million in a large import); every document holds these fields.
    compact: true,
  },
  // Only the facts that end: few, read across environments in the order of their ends.
  factEnds: { name: 'fact_ends', fields: ['environment_id', 'expires_at'], indexes: [['expires_at']] },
  conditionSets: { name: 'condition_sets', fields: ['environment_id', 'key', 'type', '_from'], indexes: [['environment_id', 'key']] },
  setRules: {
    name: 'set_rules',
    fields: ['environment_id', 'permission', 'user_set', 'resource_set', '_from'],
    indexes: [['environment_id', 'permission']],
  },
  proxyConfigs: { name: 'proxy_configs', fields: ['environment_id', 'key', '_from'], indexes: [['environment_id', 'key']] },
  userInvites: {
    name: 'user_invites',
    fields: ['environment_id', 'key', '_role', 'role_id', '_tenant', 'tenant_id', '_from'],
    indexes: [['environment_id', 'key']],
  },
} satisfies Record<string, CollectionSpec>;

/** Typed access to every read-model collection. One instance per document store. */
export class ReadModels {
  readonly organizations: Collection<OrganizationDoc>;
  readonly projects: Collection<ProjectDoc>;
  readonly environments: Collection<EnvironmentDoc>;
  readonly apiKeys: Collection<ApiKeyDoc>;
  readonly resources: Collection<ResourceDoc>;
  readonly resourceRoles: Collection<RoleDoc>;
  readonly roles: Collection<RoleDoc>;
  readonly relations: Collection<RelationDoc>;
  readonly tenants: Collection<TenantDoc>;
  readonly users: Collection<UserDoc>;
  readonly instances: Collection<InstanceDoc>;
  readonly assignments: Collection<AssignmentDoc>;
  readonly tuples: Collection<TupleDoc>;
  /** The ends of the assignments and tuples that have one (not versioned: the log and the facts keep their history). */
  readonly factEnds: Collection<FactEndDoc>;
  readonly conditionSets: Collection<ConditionSetDoc>;
  readonly setRules: Collection<SetRuleDoc>;
  readonly proxyConfigs: Collection<ProxyConfigDoc>;
  readonly userInvites: Collection<UserInviteDoc>;

  /**
   * The versions of the versioned collections, kept as the projections write them once the history
   * projection enables it (docs/audit.md "Time travel"); until then writes go straight through.
   */
  readonly versioning = new Versioning();

  constructor(readonly store: DocumentStore) {
    const versioned = <T extends { id: string }>(name: string, spec: CollectionSpec): Collection<T> => {
      const current = store.collection<T>(spec);
      const closed = () => store.collection<Version<T>>(historySpec(spec));
      return this.versioning.wrap(name, current, closed);
    };
    this.organizations = store.collection(specs.organizations);
    this.projects = store.collection(specs.projects);
    this.environments = store.collection(specs.environments);
    this.apiKeys = store.collection(specs.apiKeys);
    this.resources = versioned('resources', specs.resources);
    this.resourceRoles = versioned('resourceRoles', specs.resourceRoles);
    this.roles = versioned('roles', specs.roles);
    this.relations = versioned('relations', specs.relations);
    this.tenants = versioned('tenants', specs.tenants);
    this.users = versioned('users', specs.users);
    this.instances = versioned('instances', specs.instances);
    this.assignments = versioned('assignments', specs.assignments);
    this.tuples = versioned('tuples', specs.tuples);
    this.factEnds = store.collection(specs.factEnds);
    this.conditionSets = versioned('conditionSets', specs.conditionSets);
    this.setRules = versioned('setRules', specs.setRules);
    this.proxyConfigs = versioned('proxyConfigs', specs.proxyConfigs);
    this.userInvites = versioned('userInvites', specs.userInvites);
  }

  /** The read models as the projections of one runner use them: through the store's writer view (their batches are its transactions). */
  static writer(store: DocumentStore): ReadModels {
    return new ReadModels(store.writerView());
  }

  /** Finds an environment-scoped object by key or by id. */
  async byKeyOrId<T extends { id: string; environment_id?: string }>(
    collection: Collection<T>,
    environmentId: string,
    ref: string,
    extra: Record<string, string> = {},
  ): Promise<T | null> {
    const byKey = await collection.findOne({ environment_id: environmentId, key: ref, ...extra });
    if (byKey) return byKey;
    const byId = await collection.get(canonicalId(ref));
    if (!byId || byId.environment_id !== environmentId) return null;
    for (const [field, value] of Object.entries(extra)) if ((byId as Record<string, unknown>)[field] !== value) return null;
    return byId;
  }
}

/** The collections' declarations (the history read model keeps versions of the environment-scoped ones). */
export { specs as readModelSpecs };
