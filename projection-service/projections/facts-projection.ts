import { splitRef } from '../../shared/refs';
import { endsColumn } from '../../shared/read-models/in-force';
import { deleteEach } from '../../shared/read-models/history/versioning';
import type { EnvEvent, EventHandlers } from '../../shared/events';
import { dispatch, eventTypes, handledTypes } from '../../shared/events';
import { associatedTenants, type ReadModels } from '../../shared/read-models/read-models';
import type { EnvContext, Projection } from '../../shared/read-models/projection';
import { createdFields, EnvContextCache, type CreatedFields } from '../../shared/read-models/projection';
import { inviteProjectionHandlers } from './invites-projection';
import { KeyIds } from './key-ids';

/** What a facts handler writes with, for one event of environment `ctx`. */
interface FactsScope {
  rm: ReadModels;
  keyIds: KeyIds;
  ctx: EnvContext;
  at: string;
  /** The fields every document an event creates starts with. */
  common: CreatedFields;
}

/** Tenants, users, resource instances, role assignments and relationship tuples; the schema is the schema projection's. */
export const factsProjectionHandlers: EventHandlers<EnvEvent, FactsScope, Promise<void>> = {
  ResourceCreated: 'ignored',
  ResourceUpdated: 'ignored',
  ActionCreated: 'ignored',
  ActionUpdated: 'ignored',
  ActionDeleted: 'ignored',
  AttributeCreated: 'ignored',
  AttributeUpdated: 'ignored',
  AttributeDeleted: 'ignored',
  ActionGroupCreated: 'ignored',
  ActionGroupUpdated: 'ignored',
  ActionGroupDeleted: 'ignored',
  // Only to forget the ids they remove (the schema projection maintains those documents).
  ResourceDeleted: forgetIds,
  RoleCreated: 'ignored',
  RoleUpdated: 'ignored',
  RoleDerivationsReplaced: 'ignored',
  RoleExtendsReplaced: 'ignored',
  RoleDerivationConditionsSet: 'ignored',
  ImplicitGrantAdded: 'ignored',
  ImplicitGrantRemoved: 'ignored',
  RoleDeleted: forgetIds,
  RelationCreated: 'ignored',
  RelationDeleted: forgetIds,
  async TenantCreated({ rm, keyIds, ctx, at, common }, { data: d }) {
    await rm.tenants.put({
      id: d.id,
      key: d.key,
      name: d.name,
      description: d.description,
      attributes: d.attributes,
      last_action_at: at,
      ...common,
    });
    keyIds.set(ctx.environment_id, 'tenant', d.key, d.id);
  },
  async TenantUpdated({ rm, at }, { data: d }) {
    const tenant = await rm.tenants.get(d.id);
    if (!tenant) return;
    if (d.name !== undefined) tenant.name = d.name;
    if (d.description !== undefined) tenant.description = d.description;
    if (d.attributes !== undefined) tenant.attributes = d.attributes;
    await rm.tenants.put({ ...tenant, updated_at: at, last_action_at: at });
  },
  async TenantDeleted({ rm, keyIds, ctx }, { data: d }) {
    await rm.tenants.delete(d.id);
    keyIds.forget(ctx.environment_id, 'tenant', d.key);
  },
  async UserCreated({ rm, keyIds, ctx, common }, { data: d }) {
    await rm.users.put({
      id: d.id,
      key: d.key,
      email: d.email,
      first_name: d.firstName,
      last_name: d.lastName,
      attributes: d.attributes,
      roles: [],
      associated_tenants: [],
      ...common,
    });
    keyIds.set(ctx.environment_id, 'user', d.key, d.id);
  },
  async UserUpdated({ rm, at }, { data: d }) {
    const user = await rm.users.get(d.id);
    if (!user) return;
    if (d.email !== undefined) user.email = d.email;
    if (d.firstName !== undefined) user.first_name = d.firstName;
    if (d.lastName !== undefined) user.last_name = d.lastName;
    if (d.attributes !== undefined) user.attributes = d.attributes;
    await rm.users.put({ ...user, updated_at: at });
  },
  async UserDeleted({ rm, keyIds, ctx }, { data: d }) {
    await rm.users.delete(d.id);
    keyIds.forget(ctx.environment_id, 'user', d.key);
  },
  async ResourceInstanceCreated(scope, { data: d }) {
    const { rm, keyIds, common } = scope;
    const env = scope.ctx.environment_id;
    const resourceId = await keyIds.of(env, 'resource', d.resource, () =>
      idOf(rm.resources.findOne({ environment_id: env, key: d.resource })),
    );
    await rm.instances.put({
      id: d.id,
      key: d.key,
      resource: d.resource,
      resource_id: resourceId,
      tenant: d.tenant,
      tenant_id: await tenantId(scope, d.tenant),
      attributes: d.attributes,
      ...common,
    });
    keyIds.set(env, 'instance', `${d.resource}:${d.key}`, d.id);
  },
  async ResourceInstanceUpdated({ rm, at }, { data: d }) {
    const instance = await rm.instances.get(d.id);
    if (instance) await rm.instances.put({ ...instance, attributes: d.attributes, updated_at: at });
  },
  async ResourceInstanceDeleted({ rm, keyIds, ctx }, { data: d }) {
    const env = ctx.environment_id;
    const ref = `${d.resource}:${d.key}`;
    await rm.instances.delete(d.id);
    keyIds.forget(env, 'instance', ref);
    // The log deletes an instance's tuples before it; any left (an older log) go with it, so nothing (the grants traversal included) follows them.
    await rm.tuples.deleteMany({ environment_id: env, subject: ref });
    await rm.tuples.deleteMany({ environment_id: env, object: ref });
  },
  async RoleAssigned(scope, { data: d }) {
    const { rm, keyIds, ctx, at } = scope;
    const env = ctx.environment_id;
    // A tenant-level role is also listed on the user document, which then needs reading whole.
    const user = d.resourceInstance === null ? await rm.users.findOne({ environment_id: env, key: d.user }) : null;
    const userId = user
      ? user.id
      : await keyIds.of(env, 'user', d.user, () => idOf(rm.users.findOne({ environment_id: env, key: d.user })));
    const roleId =
      d.resource === null
        ? await keyIds.of(env, 'role', d.role, () => idOf(rm.roles.findOne({ environment_id: env, key: d.role })))
        : await keyIds.of(env, 'resource-role', `${d.resource}#${d.role}`, () =>
            idOf(rm.resourceRoles.findOne({ environment_id: env, resource: d.resource, key: d.role })),
          );
    await rm.assignments.put({
      id: d.id,
      user: d.user,
      role: d.role,
      tenant: d.tenant,
      resource_instance: d.resourceInstance,
      resource_instance_id: d.resourceInstance ? await instanceId(scope, d.resourceInstance) : null,
      user_id: userId,
      role_id: roleId,
      tenant_id: await tenantId(scope, d.tenant),
      organization_id: ctx.organization_id,
      project_id: ctx.project_id,
      environment_id: env,
      created_at: at,
      expires_at: d.expiresAt ?? null,
      _ends: endsColumn(d.expiresAt),
      _resource: d.resource,
    });
    await keepEnd(scope, d.id, 'assignment', d.expiresAt);
    if (user && d.resourceInstance === null && !user.roles.some((r) => r.role === d.role && r.tenant === d.tenant)) {
      user.roles.push({ role: d.role, tenant: d.tenant });
      await rm.users.put({ ...user, associated_tenants: associatedTenants(user.roles) });
    }
  },
  async RoleUnassigned(scope, { data: d }) {
    await unassigned(scope, d);
  },
  async RoleAssignmentExpirySet(scope, { data: d }) {
    const assignment = await scope.rm.assignments.get(d.id);
    if (!assignment) return;
    // An assignment keeps `created_at`; its versions in the history tell when its end moved.
    await scope.rm.assignments.put({ ...assignment, expires_at: d.expiresAt, _ends: endsColumn(d.expiresAt) });
    await keepEnd(scope, d.id, 'assignment', d.expiresAt);
  },
  async RoleAssignmentExpired(scope, { data: d }) {
    await unassigned(scope, d);
  },
  async RelationshipTupleCreated(scope, { data: d }) {
    const { rm, keyIds, common } = scope;
    const env = scope.ctx.environment_id;
    const objectType = splitRef(d.object)[0] ?? '';
    const [subjectId, objectId, relationId, tid] = await Promise.all([
      instanceId(scope, d.subject),
      instanceId(scope, d.object),
      keyIds.of(env, 'relation', `${objectType}#${d.relation}`, () =>
        idOf(rm.relations.findOne({ environment_id: env, object_resource: objectType, key: d.relation })),
      ),
      tenantId(scope, d.tenant),
    ]);
    await rm.tuples.put({
      id: d.id,
      subject: d.subject,
      relation: d.relation,
      object: d.object,
      tenant: d.tenant,
      subject_id: subjectId,
      object_id: objectId,
      relation_id: relationId,
      tenant_id: tid,
      expires_at: d.expiresAt ?? null,
      _ends: endsColumn(d.expiresAt),
      ...common,
    });
    await keepEnd(scope, d.id, 'tuple', d.expiresAt);
  },
  async RelationshipTupleDeleted({ rm }, { data: d }) {
    await rm.tuples.delete(d.id);
    await rm.factEnds.delete(d.id);
  },
  async RelationshipTupleExpirySet(scope, { data: d }) {
    const tuple = await scope.rm.tuples.get(d.id);
    if (!tuple) return;
    await scope.rm.tuples.put({ ...tuple, expires_at: d.expiresAt, _ends: endsColumn(d.expiresAt), updated_at: scope.at });
    await keepEnd(scope, d.id, 'tuple', d.expiresAt);
  },
  async RelationshipTupleExpired({ rm }, { data: d }) {
    await rm.tuples.delete(d.id);
    await rm.factEnds.delete(d.id);
  },
  // Condition sets and set rules are the schema projection's (abac-projection.ts).
  ConditionSetCreated: 'ignored',
  ConditionSetUpdated: 'ignored',
  ConditionSetDeleted: 'ignored',
  SetRuleCreated: 'ignored',
  SetRuleDeleted: 'ignored',
  // Proxy configs are the schema projection's (proxy-config-projection.ts).
  ProxyConfigCreated: 'ignored',
  ProxyConfigUpdated: 'ignored',
  ProxyConfigDeleted: 'ignored',
  AssertionSaved: 'ignored',
  AssertionDeleted: 'ignored',
  // User invites (invites-projection.ts).
  ...inviteProjectionHandlers,
};

/** Tenants, users, resource instances, role assignments and relationship tuples. */
export function factsProjection(rm: ReadModels): Projection<EnvEvent> {
  const contexts = new EnvContextCache(rm);
  const keyIds = new KeyIds();
  return {
    name: 'facts',
    // 2: assignments and tuples carry `expires_at`; `fact_ends` lists the ends to come (docs/expiring-access.md).
    version: 2,
    handles: handledTypes(eventTypes.env, factsProjectionHandlers),
    async apply(event) {
      keyIds.observe(event.position);
      const ctx = await contexts.of(event);
      const at = event.metadata.timestamp;
      await dispatch(factsProjectionHandlers, event.type, { rm, keyIds, ctx, at, common: createdFields(ctx, at) }, event);
    },
    // Expiries of resource-instance assignments (runs.ts): their assignments and ends go, in a few
    // deletes, each version closed at its own event's position, as `unassigned` would one by one.
    async applyRun(run) {
      for (const event of run) keyIds.observe(event.position);
      const entries = run.map((event) => ({ id: event.data.id, position: event.position }));
      await deleteEach(rm.assignments, entries);
      await deleteEach(rm.factEnds, entries);
    },
  };
}

/** An assignment gone (unassigned, or expired): a tenant-level role leaves the user's roles too. */
async function unassigned(
  { rm, ctx }: FactsScope,
  d: { id: string; user: string; role: string; tenant: string; resourceInstance: string | null },
) {
  await rm.assignments.delete(d.id);
  await rm.factEnds.delete(d.id);
  const user = d.resourceInstance === null ? await rm.users.findOne({ environment_id: ctx.environment_id, key: d.user }) : null;
  if (user) {
    user.roles = user.roles.filter((r) => !(r.role === d.role && r.tenant === d.tenant));
    await rm.users.put({ ...user, associated_tenants: associatedTenants(user.roles) });
  }
}

/** A fact's end, where the expiry scheduler finds it (none: the fact is not there). */
async function keepEnd({ rm, ctx }: FactsScope, id: string, kind: 'assignment' | 'tuple', expiresAt: string | null | undefined) {
  if (expiresAt === null || expiresAt === undefined) await rm.factEnds.delete(id);
  else await rm.factEnds.put({ id, environment_id: ctx.environment_id, kind, expires_at: expiresAt });
}

/** A schema object was deleted: its dependants' keys may go with it. */
async function forgetIds({ keyIds }: FactsScope): Promise<void> {
  keyIds.clear();
}

const idOf = async <T extends { id: string }>(promise: Promise<T | null>) => (await promise)?.id ?? '';

const tenantId = ({ rm, keyIds, ctx }: FactsScope, key: string) =>
  keyIds.of(ctx.environment_id, 'tenant', key, () => idOf(rm.tenants.findOne({ environment_id: ctx.environment_id, key })));

const instanceId = ({ rm, keyIds, ctx }: FactsScope, ref: string) =>
  keyIds.of(ctx.environment_id, 'instance', ref, () => {
    const [resource = '', key = ''] = splitRef(ref);
    return idOf(rm.instances.findOne({ environment_id: ctx.environment_id, resource, key }));
  });
