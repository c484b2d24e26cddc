import { DuplicateEntityError, InvalidRequestError, NotFoundError, RelationTypeMismatchError, TenantMismatchError } from '../../errors';
import type { EnvEvent } from '../../events';
import { Cascade } from './cascade';
import type { EnvCommand } from './commands';
import { findInstance, findResource, findRole, findTenant, findUser } from './lookup';
import type { EnvState, InstanceState } from './state';
import { assignmentEndKey, assignmentKey, instanceRef, keyOfId, relationKey, tupleEndKey, tupleKey } from './state';
import { canonicalId, isUuid } from '../../ids';
import { isObjectKey, OBJECT_KEY_MAX } from '../../refs';

type Cmd<T extends EnvCommand['type']> = Extract<EnvCommand, { type: T }>;

export function createTenant(c: Cmd<'CreateTenant'>, s: EnvState): EnvEvent[] {
  if (s.tenants.has(c.key)) throw new DuplicateEntityError(`Tenant '${c.key}' already exists`);
  const { type: _type, ...data } = c;
  return [{ type: 'TenantCreated', data }];
}

export function deleteTenant(c: Cmd<'DeleteTenant'>, s: EnvState): EnvEvent[] {
  return new Cascade(s).tenant(findTenant(s, c.tenant)).events();
}

export function createInstance(c: Cmd<'CreateInstance'>, s: EnvState): EnvEvent[] {
  const resource = findResource(s, c.resource).key;
  const tenant = findTenant(s, c.tenant).key;
  if (s.instances.has(instanceRef(resource, c.key)))
    throw new DuplicateEntityError(`Resource instance '${resource}:${c.key}' already exists`);
  return [{ type: 'ResourceInstanceCreated', data: { id: c.id, key: c.key, resource, tenant, attributes: c.attributes } }];
}

export function deleteInstance(c: Cmd<'DeleteInstance'>, s: EnvState): EnvEvent[] {
  return new Cascade(s).instance(findInstance(s, c.instance)).events();
}

/**
 * An instance named by `type:key` that does not exist yet, in a tenant that
 * does: created implicitly, as Permit does for assignments and tuples that
 * name a tenant. Without a tenant (or an id) it is not found.
 */
function instanceOrCreated(s: EnvState, ref: string, tenant: string | null, newId: string | undefined, created: EnvEvent[]): InstanceState {
  const existing = s.instances.get(ref) ?? s.instances.get(keyOfId(s, ref) ?? '');
  if (existing) return existing;
  const separator = ref.indexOf(':');
  if (tenant === null || newId === undefined || separator <= 0) return findInstance(s, ref);
  const resource = findResource(s, ref.slice(0, separator)).key;
  const key = ref.slice(separator + 1);
  // Created here, the instance never went through the create route's key rule: the same rule, or a
  // key such as `x*` would be listed back against the documented schema (and the grants' key ranges).
  if (!isObjectKey(key)) {
    throw new InvalidRequestError(
      `Resource instance key '${key}' in '${ref}' must be 1 to ${OBJECT_KEY_MAX} letters, digits, '-' or '_' (it would be created here)`,
    );
  }
  const instance = { id: newId, key, resource, tenant: findTenant(s, tenant).key };
  created.push({ type: 'ResourceInstanceCreated', data: { ...instance, attributes: {} } });
  // Seen by the rest of this decision (a tuple's object may be its subject); the caller folds the events.
  return instance;
}

/** Where an assignment applies: one instance (tenant taken from it), or a whole tenant for a top-level role. */
function assignmentTarget(
  s: EnvState,
  c: { role: string; tenant: string | null; resourceInstance: string | null; newInstanceId?: string },
  created: EnvEvent[] = [],
) {
  if (c.resourceInstance !== null) {
    const instance = instanceOrCreated(s, c.resourceInstance, c.tenant, c.newInstanceId, created);
    if (c.tenant !== null && findTenant(s, c.tenant).key !== instance.tenant) {
      throw new TenantMismatchError(
        `Resource instance '${instanceRef(instance.resource, instance.key)}' is in tenant '${instance.tenant}', not in tenant '${c.tenant}'`,
      );
    }
    const role = findRole(s, instance.resource, c.role);
    return {
      role: role.key,
      resource: instance.resource,
      tenant: instance.tenant,
      resourceInstance: instanceRef(instance.resource, instance.key),
    };
  }
  if (c.tenant === null) throw new InvalidRequestError('A role assignment needs a tenant or a resource_instance');
  const tenant = findTenant(s, c.tenant).key;
  const role = findRole(s, null, c.role);
  return { role: role.key, resource: null, tenant, resourceInstance: null };
}

export function assignRole(c: Cmd<'AssignRole'>, s: EnvState): EnvEvent[] {
  const user = c.userMustExist ? findUser(s, c.user).key : c.user;
  const events: EnvEvent[] = [];
  const target = assignmentTarget(s, c, events);
  const assignment = { id: c.id, user, ...target };
  const existing = s.assignments.get(assignmentKey(assignment));
  const ended = existing ? endedBy(s, assignmentEndKey(existing), c.now) : null;
  if (existing && ended !== null) {
    // Ended, its expiry not appended yet: it expires now (with its own end), and this is a new assignment.
    events.push({ type: 'RoleAssignmentExpired', data: { ...existing, expiresAt: ended } });
  } else if (existing) {
    if (c.expiresAt === undefined)
      throw new DuplicateEntityError(`User '${user}' already has role '${target.role}' ${describeTarget(target)}`);
    return [{ type: 'RoleAssignmentExpirySet', data: { ...existing, expiresAt: c.expiresAt } }];
  }
  if (!s.users.has(user)) {
    events.push({
      type: 'UserCreated',
      data: { id: c.newUserId, key: c.user, email: null, firstName: null, lastName: null, attributes: {} },
    });
  }
  events.push({ type: 'RoleAssigned', data: withEnd(assignment, c.expiresAt) });
  return events;
}

export function unassignRole(c: Cmd<'UnassignRole'>, s: EnvState): EnvEvent[] {
  const target = assignmentTarget(s, c);
  const existing = s.assignments.get(assignmentKey({ user: c.user, ...target }));
  if (!existing) throw new NotFoundError(`User '${c.user}' has no role '${target.role}' ${describeTarget(target)}`);
  return [{ type: 'RoleUnassigned', data: { ...existing } }];
}

function describeTarget(t: { tenant: string; resourceInstance: string | null }): string {
  return t.resourceInstance ? `on '${t.resourceInstance}'` : `in tenant '${t.tenant}'`;
}

/** `type:key` or an instance id: a UUID that names no instance is not found (404), anything else of another form is refused (400). */
function parseInstanceRef(
  s: EnvState,
  ref: string,
  field: 'subject' | 'object',
  tenant: string | null = null,
  newId?: string,
  created: EnvEvent[] = [],
): InstanceState {
  if (!ref.includes(':') && !isUuid(canonicalId(ref))) {
    throw new InvalidRequestError(`The ${field} '${ref}' must have the form '<resource_type>:<instance_key>'`);
  }
  return instanceOrCreated(s, ref, tenant, newId, created);
}

/** Checks that a tuple is allowed by the schema; returns its normalised form. */
function tupleTarget(
  s: EnvState,
  c: { subject: string; relation: string; object: string; tenant?: string | null; newSubjectId?: string; newObjectId?: string },
  created: EnvEvent[] = [],
) {
  // Permit: the tenant is needed only when neither instance exists; otherwise a missing one joins the other's tenant.
  const known = (ref: string) => s.instances.get(ref) ?? s.instances.get(keyOfId(s, ref) ?? '');
  const tenant = c.tenant ?? (known(c.subject) ?? known(c.object))?.tenant ?? null;
  const subject = parseInstanceRef(s, c.subject, 'subject', tenant, c.newSubjectId, created);
  const object =
    c.object === c.subject && created.length > 0 ? subject : parseInstanceRef(s, c.object, 'object', tenant, c.newObjectId, created);
  const relation = s.relations.get(relationKey(object.resource, c.relation));
  if (!relation) throw new NotFoundError(`Relation '${c.relation}' not found on resource '${object.resource}'`, { relation: c.relation });
  if (relation.subjectResource !== subject.resource) {
    throw new RelationTypeMismatchError(
      `Relation '${c.relation}' of resource '${object.resource}' takes subjects of type '${relation.subjectResource}', not '${subject.resource}'`,
    );
  }
  return { subject, object, relation: relation.key };
}

export function createTuple(c: Cmd<'CreateTuple'>, s: EnvState): EnvEvent[] {
  const created: EnvEvent[] = [];
  const { subject, object, relation } = tupleTarget(s, c, created);
  if (subject.tenant !== object.tenant) {
    throw new TenantMismatchError(
      `Subject '${instanceRef(subject.resource, subject.key)}' is in tenant '${subject.tenant}' but object '${instanceRef(object.resource, object.key)}' is in tenant '${object.tenant}'; both must be in the same tenant`,
    );
  }
  if (c.tenant !== null && findTenant(s, c.tenant).key !== subject.tenant) {
    throw new TenantMismatchError(`The tuple's instances are in tenant '${subject.tenant}', not in tenant '${c.tenant}'`);
  }
  const tuple = {
    id: c.id,
    subject: instanceRef(subject.resource, subject.key),
    relation,
    object: instanceRef(object.resource, object.key),
    tenant: subject.tenant,
  };
  const existing = s.tuples.get(tupleKey(tuple));
  const ended = existing ? endedBy(s, tupleEndKey(existing), c.now) : null;
  if (existing && ended !== null) {
    created.push({ type: 'RelationshipTupleExpired', data: { ...existing, expiresAt: ended } });
  } else if (existing) {
    if (c.expiresAt === undefined) throw new DuplicateEntityError(`Relationship tuple '${tupleKey(tuple)}' already exists`);
    return [{ type: 'RelationshipTupleExpirySet', data: { ...existing, expiresAt: c.expiresAt } }];
  }
  return [...created, { type: 'RelationshipTupleCreated', data: withEnd(tuple, c.expiresAt) }];
}

export function deleteTuple(c: Cmd<'DeleteTuple'>, s: EnvState): EnvEvent[] {
  const { subject, object, relation } = tupleTarget(s, c);
  const key = tupleKey({ subject: instanceRef(subject.resource, subject.key), relation, object: instanceRef(object.resource, object.key) });
  const existing = s.tuples.get(key);
  if (!existing) throw new NotFoundError(`Relationship tuple '${key}' not found`);
  return [{ type: 'RelationshipTupleDeleted', data: { ...existing } }];
}

/** The end of a fact that ended by `now` (the write's instant), or null (no end, not yet, or no instant given). */
function endedBy(s: EnvState, endKey: string, now: string | undefined): string | null {
  const end = s.ends.get(endKey);
  return end !== undefined && now !== undefined && end <= now ? end : null;
}

/**
 * A new fact with its end, when it has one (an event without `expiresAt` is a fact that never
 * ends, as every event written before ends existed).
 */
function withEnd<T extends object>(fact: T, expiresAt: string | null | undefined): T & { expiresAt?: string } {
  return expiresAt === null || expiresAt === undefined ? fact : { ...fact, expiresAt };
}
