import type { DerivationRule, EnvEvent } from '../../events';
import type { ConditionSetState, SetRuleState } from './abac-state';
import { setRuleKey } from './abac-state';
import type { UserInviteState } from './invite-state';
import type { AssignmentState, EnvState, InstanceState, RelationState, ResourceState, RoleState, TupleState } from './state';
import { assignmentKey, instanceRef, roleKey, tupleKey } from './state';

/**
 * Deleting an object deletes what depends on it, as explicit events (the log
 * says exactly what went, and projections never have to infer a cascade).
 * A Cascade collects deletions from several roots without repeating any, then
 * emits them dependents-first so every event is valid when folded in order.
 */
export class Cascade {
  private readonly tuples = new Map<string, TupleState>();
  private readonly assignments = new Map<string, AssignmentState>();
  private readonly instances = new Map<string, InstanceState>();
  private readonly relations = new Map<string, RelationState>();
  private readonly roles = new Map<string, RoleState>();
  private readonly resources = new Map<string, ResourceState>();
  private readonly tenants = new Map<string, { id: string; key: string }>();
  private readonly conditionSets = new Map<string, ConditionSetState>();
  private readonly setRules = new Map<string, SetRuleState>();
  /** Actions removed from resources that stay: `${resource}:${action}` → the action's id. */
  private readonly actions = new Map<string, { resource: string; key: string; id: string }>();
  private readonly users = new Map<string, { id: string; key: string }>();
  /** User invites naming a role, tenant or instance that goes (pending or approved: each names all three). */
  private readonly invites = new Map<string, UserInviteState>();

  constructor(private readonly state: EnvState) {}

  instance(instance: InstanceState): this {
    const ref = instanceRef(instance.resource, instance.key);
    if (this.instances.has(ref)) return this;
    this.instances.set(ref, instance);
    // Matched on the keys, so only the matches are rebuilt as objects.
    for (const key of this.state.tuples.keysTouching(ref)) this.tuples.set(key, this.state.tuples.get(key)!);
    for (const key of this.state.assignments.keysOnInstance(ref)) this.assignments.set(key, this.state.assignments.get(key)!);
    this.invitesWhere((i) => i.resourceInstance === ref);
    return this;
  }

  role(role: RoleState): this {
    const key = roleKey(role.resource, role.key);
    if (this.roles.has(key)) return this;
    this.roles.set(key, role);
    // A top-level role used as a user set: its set rules go with it.
    if (role.resource === null) this.setRulesWhere((r) => r.userSetIsRole && r.userSet === role.key);
    this.invitesWhere((i) => i.role === role.key && i.roleResource === role.resource);
    for (const a of this.state.assignments.values()) {
      if (a.role === role.key && a.resource === role.resource) this.assignments.set(assignmentKey(a), a);
    }
    return this;
  }

  relation(relation: RelationState): this {
    const key = `${relation.objectResource}#${relation.key}`;
    if (this.relations.has(key)) return this;
    this.relations.set(key, relation);
    for (const tuple of this.state.tuples.values()) {
      if (
        tuple.relation === relation.key &&
        tuple.object.startsWith(`${relation.objectResource}:`) &&
        tuple.subject.startsWith(`${relation.subjectResource}:`)
      ) {
        this.tuples.set(tupleKey(tuple), tuple);
      }
    }
    return this;
  }

  resource(resource: ResourceState): this {
    if (this.resources.has(resource.key)) return this;
    this.resources.set(resource.key, resource);
    // Its resource sets, and every set rule granting one of its actions.
    for (const set of this.state.abac.conditionSets.values()) if (set.resource === resource.key) this.conditionSet(set);
    this.setRulesWhere((r) => r.permission.startsWith(`${resource.key}:`));
    for (const instance of this.state.instances.values()) if (instance.resource === resource.key) this.instance(instance);
    for (const role of this.state.roles.values()) if (role.resource === resource.key) this.role(role);
    for (const relation of this.state.relations.values()) {
      if (relation.objectResource === resource.key || relation.subjectResource === resource.key) this.relation(relation);
    }
    return this;
  }

  /** One action of a resource that stays: roles granting it and groups holding it lose it. */
  action(resource: ResourceState, key: string): this {
    const id = resource.actions.get(key);
    if (id !== undefined) this.actions.set(`${resource.key}:${key}`, { resource: resource.key, key, id });
    this.setRulesWhere((r) => r.permission === `${resource.key}:${key}`);
    return this;
  }

  tenant(tenant: { id: string; key: string }): this {
    this.tenants.set(tenant.key, tenant);
    for (const instance of this.state.instances.values()) if (instance.tenant === tenant.key) this.instance(instance);
    for (const a of this.state.assignments.values()) if (a.tenant === tenant.key) this.assignments.set(assignmentKey(a), a);
    this.invitesWhere((i) => i.tenant === tenant.key);
    return this;
  }

  /** A condition set, its descendants, and the set rules naming any of them. */
  conditionSet(set: ConditionSetState): this {
    if (this.conditionSets.has(set.key)) return this;
    this.conditionSets.set(set.key, set);
    this.setRulesWhere((r) => (!r.userSetIsRole && r.userSet === set.key) || (!r.resourceSetIsResource && r.resourceSet === set.key));
    for (const child of this.state.abac.conditionSets.values()) if (child.parent === set.key) this.conditionSet(child);
    return this;
  }

  private invitesWhere(matches: (invite: UserInviteState) => boolean): void {
    for (const invite of this.state.invites.byKey.values()) if (matches(invite)) this.invites.set(invite.key, invite);
  }

  private setRulesWhere(matches: (rule: SetRuleState) => boolean): void {
    for (const rule of this.state.abac.setRules.values()) if (matches(rule)) this.setRules.set(setRuleKey(rule), rule);
  }

  /** A user goes with its role assignments (its grants go with them); tuples never name users. */
  user(user: { id: string; key: string }): this {
    if (this.users.has(user.key)) return this;
    this.users.set(user.key, user);
    for (const a of this.state.assignments.ofUser(user.key)) this.assignments.set(assignmentKey(a), a);
    return this;
  }

  /** A derivation rule stops being valid when its role, relation or resource goes. */
  private ruleSurvives(rule: DerivationRule, owner: RoleState): boolean {
    if (this.resources.has(rule.onResource)) return false;
    if (this.roles.has(roleKey(rule.onResource, rule.role))) return false;
    return !this.relations.has(`${owner.resource ?? ''}#${rule.relation}`);
  }

  private permissionSurvives(owner: string | null, permission: string): boolean {
    if (owner !== null) return !this.actions.has(`${owner}:${permission}`);
    return !this.resources.has(permission.split(':')[0] ?? '') && !this.actions.has(permission);
  }

  events(): EnvEvent[] {
    const out: EnvEvent[] = [];
    for (const i of this.invites.values()) out.push({ type: 'UserInviteDeleted', data: { id: i.id, key: i.key } });
    for (const r of this.setRules.values()) out.push({ type: 'SetRuleDeleted', data: { ...r } });
    // Descendants first: each set is deleted after the sets that name it as parent.
    for (const set of [...this.conditionSets.values()].reverse()) {
      out.push({ type: 'ConditionSetDeleted', data: { id: set.id, key: set.key, type: set.type, resource: set.resource } });
    }
    for (const t of this.tuples.values()) out.push({ type: 'RelationshipTupleDeleted', data: { ...t } });
    for (const a of this.assignments.values()) out.push({ type: 'RoleUnassigned', data: { ...a } });
    for (const role of this.state.roles.values()) {
      if (this.roles.has(roleKey(role.resource, role.key))) continue;
      const ref = { id: role.id, key: role.key, resource: role.resource };
      const rules = role.rules.filter((r) => this.ruleSurvives(r, role));
      if (rules.length !== role.rules.length) out.push({ type: 'RoleDerivationsReplaced', data: { ...ref, rules } });
      // A deleted role leaves the `extends` of the roles that inherited from it.
      const parents = (role.extends ?? []).filter((p) => !this.roles.has(roleKey(role.resource, p)));
      if (parents.length !== (role.extends ?? []).length) out.push({ type: 'RoleExtendsReplaced', data: { ...ref, extends: parents } });
      // Top-level roles name `resource:action`, resource roles their resource's bare actions.
      const permissions = role.permissions.filter((p) => this.permissionSurvives(role.resource, p));
      if (permissions.length !== role.permissions.length)
        out.push({ type: 'RoleUpdated', data: { ...ref, name: null, description: null, permissions } });
    }
    for (const resourceKey of new Set([...this.actions.values()].map((a) => a.resource))) {
      for (const [key, group] of this.state.resources.get(resourceKey)?.actionGroups ?? []) {
        const actions = group.actions.filter((a) => !this.actions.has(`${resourceKey}:${a}`));
        if (actions.length !== group.actions.length)
          out.push({ type: 'ActionGroupUpdated', data: { resource: resourceKey, id: group.id, key, actions } });
      }
    }
    for (const a of this.actions.values()) out.push({ type: 'ActionDeleted', data: { resource: a.resource, id: a.id, key: a.key } });
    for (const i of this.instances.values())
      out.push({ type: 'ResourceInstanceDeleted', data: { id: i.id, key: i.key, resource: i.resource, tenant: i.tenant } });
    for (const r of this.relations.values())
      out.push({
        type: 'RelationDeleted',
        data: { id: r.id, key: r.key, objectResource: r.objectResource, subjectResource: r.subjectResource },
      });
    for (const r of this.roles.values()) out.push({ type: 'RoleDeleted', data: { id: r.id, key: r.key, resource: r.resource } });
    for (const r of this.resources.values()) out.push({ type: 'ResourceDeleted', data: { id: r.id, key: r.key } });
    for (const t of this.tenants.values()) out.push({ type: 'TenantDeleted', data: { id: t.id, key: t.key } });
    for (const u of this.users.values()) out.push({ type: 'UserDeleted', data: { id: u.id, key: u.key } });
    return out;
  }
}
