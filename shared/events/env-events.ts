import { z } from 'zod';
import { sealedSecretSchema } from '../secrets/sealed-secret';

/**
 * Events of an environment stream (schema and facts). Objects reference each
 * other by key (keys are immutable), so projections and the grants engine never
 * need an id lookup, and a copy only has to remap the objects' own ids.
 */

const str = z.string();
const attrs = z.record(z.string(), z.unknown());

/** description null: none given (events written before it could be null hold ''). */
const description = str.nullable();
export const actionSchema = z.object({ id: str, key: str, name: str, description });

/**
 * Permit's attribute types; the only ones a resource (or user) attribute may declare. The Node SDK
 * 2.7.6 types list the first six; Permit's current API (and the Python SDK 3.0.0) adds `object`
 * and `object_array`.
 */
export const attributeTypes = ['bool', 'number', 'string', 'time', 'array', 'json', 'object', 'object_array'] as const;
export type AttributeType = (typeof attributeTypes)[number];
export const attributeSchema = z.object({ id: str, key: str, type: z.enum(attributeTypes), description });
export type AttributeDef = z.infer<typeof attributeSchema>;

/** A change of some fields: an absent field is unchanged. */
const changed = <S extends z.ZodRawShape>(shape: S) => z.object(shape).partial();

/** One role derivation: users holding `role` on an `onResource` instance linked by `relation` to an instance of this role's type get this role on it. */
export const derivationRuleSchema = z.object({ onResource: str, role: str, relation: str });
export type DerivationRule = z.infer<typeof derivationRuleSchema>;

const ev = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) => z.object({ type: z.literal(type), data: z.object(shape) });

/** `resource` null = a top-level (tenant) role whose permissions are `type:action`. */
const roleRef = { id: str, key: str, resource: str.nullable() };

const conditionSetRef = { id: str, key: str, type: z.enum(['userset', 'resourceset']), resource: str.nullable() };
/**
 * A set rule grants `permission` (`type:action`) to a user set on a resource set.
 * `userSet` names a user set, or a top-level role when `userSetIsRole`;
 * `resourceSet` a resource set, or a whole resource type when `resourceSetIsResource`.
 */
const setRuleRef = {
  id: str,
  key: str,
  userSet: str,
  userSetIsRole: z.boolean(),
  permission: str,
  resourceSet: str,
  resourceSetIsResource: z.boolean(),
};

/** A role assignment, as its events name it (keys; `resource` null for a top-level role). */
const assignmentRef = { id: str, user: str, role: str, resource: str.nullable(), tenant: str, resourceInstance: str.nullable() };
const tupleRef = { id: str, subject: str, relation: str, object: str, tenant: str };
/**
 * When a role assignment or a relationship tuple ends: an instant in UTC with milliseconds
 * (`toISOString()`, so that ends compare as strings in time order); null: never.
 */
const expiresAt = str.nullable();

/** Permit's proxy config auth mechanisms: how its API proxy would send the secret (this service proxies nothing). */
export const proxyAuthMechanisms = ['Bearer', 'Basic', 'Headers'] as const;
export const proxyHttpMethods = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;
/** One mapping rule of a proxy config, as stored (Permit's MappingRule; its identity is url and http_method). */
export const mappingRuleSchema = z.object({
  url: str,
  urlType: z.literal('regex').nullable(),
  httpMethod: z.enum(proxyHttpMethods),
  resource: str,
  headers: z.record(z.string(), z.string()),
  action: str.nullable(),
  priority: z.number().int().nullable(),
});
export type MappingRule = z.infer<typeof mappingRuleSchema>;
/**
 * A proxy config's definition, whole. `secret`: a token (Bearer), `user:password` (Basic) or
 * header values (Headers), sealed with the deployment's SECRETS_KEY before it is appended (no
 * secret enters the log: shared/secrets/), opened only where the API reads it back; left out of
 * what the audit log shows (command-service/audit/present-event.ts).
 */
const proxyConfigShape = {
  id: str,
  key: str,
  name: str,
  authMechanism: z.enum(proxyAuthMechanisms),
  secret: sealedSecretSchema,
  mappingRules: z.array(mappingRuleSchema),
};

/** What a user invite says (created, or after an update). */
const userInviteDefinition = {
  id: str,
  key: str,
  email: str,
  firstName: str.nullable(),
  lastName: str.nullable(),
  role: str,
  roleResource: str.nullable(),
  tenant: str,
  resourceInstance: str.nullable(),
};

/**
 * A saved assertion (a test of the policy, docs/assertions.md): the check it asks and the answer
 * it expects. Decides nothing; kept in the environment's stream so that it is audited and copied
 * with the policy.
 */
export const assertionDefinitionSchema = z.object({
  id: str,
  name: str.nullable(),
  description: str.nullable(),
  user: str,
  action: str,
  resource: z.object({ type: str, key: str.nullable(), tenant: str.nullable(), attributes: attrs.nullable() }),
  userAttributes: attrs.nullable(),
  context: attrs.nullable(),
  expected: z.enum(['allow', 'deny']),
});
export type AssertionDefinition = z.infer<typeof assertionDefinitionSchema>;

export const envEventSchemas = [
  /**
   * `attributes`: key → {id, type, description} (AttributeDef without key); events written
   * before attributes had ids hold whatever the caller sent (see attributeDefsOf).
   * `urn` is absent from events written before it existed.
   */
  ev('ResourceCreated', {
    id: str,
    key: str,
    name: str,
    description,
    urn: str.nullable().optional(),
    actions: z.array(actionSchema),
    attributes: attrs,
  }),
  ev('ResourceUpdated', { id: str, key: str, ...changed({ name: str, description, urn: str.nullable() }).shape }),
  ev('ResourceDeleted', { id: str, key: str }),
  /** Actions, attributes and action groups of resource `resource` (a key). */
  ev('ActionCreated', { resource: str, ...actionSchema.shape }),
  ev('ActionUpdated', { resource: str, id: str, key: str, ...changed({ name: str, description }).shape }),
  ev('ActionDeleted', { resource: str, id: str, key: str }),
  ev('AttributeCreated', { resource: str, ...attributeSchema.shape }),
  ev('AttributeUpdated', { resource: str, id: str, key: str, ...changed({ type: z.enum(attributeTypes), description }).shape }),
  ev('AttributeDeleted', { resource: str, id: str, key: str }),
  ev('ActionGroupCreated', { resource: str, id: str, key: str, name: str, description, actions: z.array(str) }),
  ev('ActionGroupUpdated', { resource: str, id: str, key: str, ...changed({ name: str, description, actions: z.array(str) }).shape }),
  ev('ActionGroupDeleted', { resource: str, id: str, key: str }),
  ev('RoleCreated', { ...roleRef, name: str, description, permissions: z.array(str), attributes: attrs }),
  /** name/description null: unchanged. */
  ev('RoleUpdated', { ...roleRef, name: str.nullable(), description: str.nullable(), permissions: z.array(str) }),
  ev('RoleDerivationsReplaced', { ...roleRef, rules: z.array(derivationRuleSchema) }),
  ev('ImplicitGrantAdded', { ...roleRef, rule: derivationRuleSchema }),
  ev('ImplicitGrantRemoved', { ...roleRef, rule: derivationRuleSchema }),
  /** The roles this role extends (inherits the permissions of), replaced whole: same scope (resource, or top-level) only, acyclic. */
  ev('RoleExtendsReplaced', { ...roleRef, extends: z.array(str) }),
  /** `granted_to.when.no_direct_roles_on_object`: the role's derivations skip a user on an instance where the user holds a direct role. */
  ev('RoleDerivationConditionsSet', { ...roleRef, noDirectRolesOnObject: z.boolean() }),
  ev('RoleDeleted', roleRef),
  ev('RelationCreated', { id: str, key: str, name: str, description, objectResource: str, subjectResource: str }),
  ev('RelationDeleted', { id: str, key: str, objectResource: str, subjectResource: str }),
  ev('TenantCreated', { id: str, key: str, name: str, description, attributes: attrs }),
  /** Only the fields present changed (a PATCH names some, a replace all). */
  ev('TenantUpdated', { id: str, key: str, name: str.optional(), description: description.optional(), attributes: attrs.optional() }),
  ev('TenantDeleted', { id: str, key: str }),
  ev('UserCreated', { id: str, key: str, email: str.nullable(), firstName: str.nullable(), lastName: str.nullable(), attributes: attrs }),
  /** Only the fields present changed: PATCH names some, a replace (PUT, sync) all of them. */
  ev('UserUpdated', {
    id: str,
    key: str,
    email: str.nullable().optional(),
    firstName: str.nullable().optional(),
    lastName: str.nullable().optional(),
    attributes: attrs.optional(),
  }),
  /** Preceded by a RoleUnassigned for each of the user's assignments. */
  ev('UserDeleted', { id: str, key: str }),
  ev('ResourceInstanceCreated', { id: str, key: str, resource: str, tenant: str, attributes: attrs }),
  ev('ResourceInstanceUpdated', { id: str, key: str, resource: str, tenant: str, attributes: attrs }),
  ev('ResourceInstanceDeleted', { id: str, key: str, resource: str, tenant: str }),
  /** `expiresAt`: when the assignment ends (docs/expiring-access.md); absent or null: never (events written before ends existed have none). */
  ev('RoleAssigned', { ...assignmentRef, expiresAt: expiresAt.optional() }),
  ev('RoleUnassigned', assignmentRef),
  /** An existing assignment written again with `expires_at`: its end is now `expiresAt` (null: none). */
  ev('RoleAssignmentExpirySet', { ...assignmentRef, expiresAt }),
  /**
   * The assignment ended at `expiresAt` (its end, in the past when appended): appended by the
   * service (actor `system`) after the end, it removes the assignment as RoleUnassigned does.
   */
  ev('RoleAssignmentExpired', { ...assignmentRef, expiresAt: str }),
  ev('RelationshipTupleCreated', { ...tupleRef, expiresAt: expiresAt.optional() }),
  ev('RelationshipTupleDeleted', tupleRef),
  ev('RelationshipTupleExpirySet', { ...tupleRef, expiresAt }),
  /** As RoleAssignmentExpired, for a tuple: removes it as RelationshipTupleDeleted does. */
  ev('RelationshipTupleExpired', { ...tupleRef, expiresAt: str }),
  /** Condition sets (ABAC, docs/abac.md): `resource` is the resource type of a resource set (null for a user set); `parent` a set key. */
  ev('ConditionSetCreated', { ...conditionSetRef, name: str, description: str, parent: str.nullable(), conditions: attrs }),
  /** The set's definition after the update, whole. */
  ev('ConditionSetUpdated', { ...conditionSetRef, name: str, description: str, parent: str.nullable(), conditions: attrs }),
  ev('ConditionSetDeleted', conditionSetRef),
  ev('SetRuleCreated', setRuleRef),
  ev('SetRuleDeleted', setRuleRef),
  /** Proxy configs (Permit's API proxy): stored objects only; nothing is proxied. Updated: the definition after the update, whole. */
  ev('ProxyConfigCreated', proxyConfigShape),
  ev('ProxyConfigUpdated', proxyConfigShape),
  ev('ProxyConfigDeleted', { id: str, key: str }),
  /**
   * User invites (Permit's Elements user invites, docs/permit-compat.md): an invitation of `email`
   * to hold `role` (of resource type `roleResource`; null for a top-level role) in `tenant`, and on
   * `resourceInstance` (`type:key`) for a resource role. References are keys, as everywhere.
   */
  ev('UserInviteCreated', userInviteDefinition),
  /** The invite's definition after the update, whole. */
  ev('UserInviteUpdated', userInviteDefinition),
  /** Preceded by the events that make or update user `user` (a key) and give it the invite's role. */
  ev('UserInviteApproved', { id: str, key: str, user: str }),
  ev('UserInviteDeleted', { id: str, key: str }),
  /** An assertion created or changed: its definition after the change, whole. */
  ev('AssertionSaved', assertionDefinitionSchema.shape),
  ev('AssertionDeleted', { id: str }),
] as const;

export type EnvEvent = z.infer<(typeof envEventSchemas)[number]>;
export type EnvEventOf<T extends EnvEvent['type']> = Extract<EnvEvent, { type: T }>;
