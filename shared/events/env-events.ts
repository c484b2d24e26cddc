import { z } from 'zod';

/**
 * Events of an environment stream (schema and facts). Objects reference each
 * other by key (keys are immutable), so projections and the grants engine never
 * need an id lookup, and a copy only has to remap the objects' own ids.
 */

const str = z.string();
const attrs = z.record(z.string(), z.unknown());

export const actionSchema = z.object({ id: str, key: str, name: str, description: str });

/** One role derivation: users holding `role` on an `onResource` instance linked by `relation` to an instance of this role's type get this role on it. */
export const derivationRuleSchema = z.object({ onResource: str, role: str, relation: str });
export type DerivationRule = z.infer<typeof derivationRuleSchema>;

const ev = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) => z.object({ type: z.literal(type), data: z.object(shape) });

/** `resource` null = a top-level (tenant) role whose permissions are `type:action`. */
const roleRef = { id: str, key: str, resource: str.nullable() };

export const envEventSchemas = [
  ev('ResourceCreated', { id: str, key: str, name: str, description: str, actions: z.array(actionSchema), attributes: attrs }),
  ev('ResourceDeleted', { id: str, key: str }),
  ev('RoleCreated', { ...roleRef, name: str, description: str, permissions: z.array(str), attributes: attrs }),
  /** name/description null: unchanged. */
  ev('RoleUpdated', { ...roleRef, name: str.nullable(), description: str.nullable(), permissions: z.array(str) }),
  ev('RoleDerivationsReplaced', { ...roleRef, rules: z.array(derivationRuleSchema) }),
  ev('ImplicitGrantAdded', { ...roleRef, rule: derivationRuleSchema }),
  ev('ImplicitGrantRemoved', { ...roleRef, rule: derivationRuleSchema }),
  ev('RoleDeleted', roleRef),
  ev('RelationCreated', { id: str, key: str, name: str, description: str, objectResource: str, subjectResource: str }),
  ev('RelationDeleted', { id: str, key: str, objectResource: str, subjectResource: str }),
  ev('TenantCreated', { id: str, key: str, name: str, description: str, attributes: attrs }),
  /** Only the fields present changed (a PATCH names some, a replace all). */
  ev('TenantUpdated', { id: str, key: str, name: str.optional(), description: str.optional(), attributes: attrs.optional() }),
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
  ev('RoleAssigned', { id: str, user: str, role: str, resource: str.nullable(), tenant: str, resourceInstance: str.nullable() }),
  ev('RoleUnassigned', { id: str, user: str, role: str, resource: str.nullable(), tenant: str, resourceInstance: str.nullable() }),
  ev('RelationshipTupleCreated', { id: str, subject: str, relation: str, object: str, tenant: str }),
  ev('RelationshipTupleDeleted', { id: str, subject: str, relation: str, object: str, tenant: str }),
] as const;

export type EnvEvent = z.infer<(typeof envEventSchemas)[number]>;
export type EnvEventOf<T extends EnvEvent['type']> = Extract<EnvEvent, { type: T }>;
