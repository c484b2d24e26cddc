import type { Filter, FindOptions } from '../../shared/docstore/port';
import type { DerivationRule } from '../../shared/events';
import { grantId, typeOf, type GrantDoc } from '../../shared/read-models/grants/model';
import type { AssignmentDoc, ReadModels, RoleDoc, TupleDoc } from '../../shared/read-models/read-models';
import { byRole, type RolePermissions } from './role-permissions';
import { ReadOnlyGrants } from './read-only-grants';
import { chunks, unique } from './types';
import { byteOrder, findInMemory } from '../../shared/docstore/value-order';

/**
 * Derived grants computed on the fly, for read models that have no
 * materialised grants: the read models as of a past log position (the history
 * read model keeps assignments, tuples and role definitions, not grants). It
 * answers the same queries the derived-grants collection answers for checks,
 * `/user-permissions` and `/authorized_users`, so those run unchanged over it:
 *
 * - one user on one instance (a check): walk from the instance up the tuple
 *   graph (object to subject) along the rules that could grant each role there,
 *   then look up the user's assignments on the instances reached, and carry
 *   them back down (breadth first, so each grant's reason is a shortest chain);
 * - everyone on one instance (`/authorized_users`): the same walk, with every
 *   user's assignments on the instances reached;
 * - one user everywhere (`/user-permissions`): from the user's assignments down
 *   the tuple graph (subject to object) along the rules, as the projection derives.
 *
 * The semantics are the projection's (projection-service/grants/derive.ts): a
 * direct grant per resource-role assignment; a derived grant of role R of type
 * T on `T:y` per rule `{role r, on_resource S, relation rel}` of R and tuple
 * `(S:x, rel, T:y)` from a grant of r on `S:x` in the tuple's tenant. The
 * reasons are shortest supports, which may differ from the one the projection
 * happened to store then; the grants themselves are the same set.
 *
 * One instance serves one request: what it computes is kept for the request
 * (the read models it reads do not change).
 */
export class GrantsAsOf extends ReadOnlyGrants {
  private readonly computed = new Map<string, Promise<GrantDoc[]>>();
  private readonly byId = new Map<string, GrantDoc>();
  private rulesLoaded: Promise<Rules> | null = null;
  private readonly tuplesInto = new Map<string, Promise<Edge[]>>();

  constructor(private readonly rm: ReadModels) {
    super('grants as of a past position are read-only');
  }

  /** Role permissions read from the same read models (resource roles read once per request). */
  rolePermissions(): RolePermissions {
    return {
      ofResource: async (environmentId, resource) => {
        const rules = await this.rules(environmentId);
        return byRole(rules.roles.filter((r) => r.resource === resource));
      },
      topLevel: async (environmentId) => byRole(await this.rm.roles.find({ environment_id: environmentId })),
    };
  }

  async get(id: string): Promise<GrantDoc | null> {
    return this.byId.get(id) ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<GrantDoc[]> {
    const environmentId = filter.environment_id;
    if (typeof environmentId !== 'string') throw new Error('grants as of a position are read per environment');
    const { user, instance } = filter;
    let candidates: GrantDoc[];
    if (typeof user === 'string' && typeof instance === 'string') {
      candidates = await this.memo(`check ${user} ${instance}`, () => this.onInstance(environmentId, instance, user));
    } else if (typeof user === 'string') {
      candidates = await this.memo(`user ${user}`, () => this.ofUser(environmentId, user));
    } else if (typeof instance === 'string') {
      candidates = await this.memo(`holders ${instance}`, () => this.onInstance(environmentId, instance, null));
    } else {
      throw new Error('grants as of a position are read by user, by instance, or both');
    }
    return findInMemory(candidates, filter, options);
  }

  private memo(key: string, compute: () => Promise<GrantDoc[]>): Promise<GrantDoc[]> {
    let found = this.computed.get(key);
    if (!found) {
      found = compute().then((grants) => {
        for (const g of grants) this.byId.set(g.id, g);
        return grants;
      });
      this.computed.set(key, found);
    }
    return found;
  }

  private rules(environmentId: string): Promise<Rules> {
    return (this.rulesLoaded ??= this.rm.resourceRoles.find({ environment_id: environmentId }).then((roles) => new Rules(roles)));
  }

  /**
   * The grants on `instance` of `user` (or of every user: null). Walks up from
   * the instance over the tuples and rules that could carry a role to it (the
   * instances and roles a grant there could come from), then carries the
   * assignments found on them back down.
   */
  /**
   * The assignments of each of `users` from which one of `roles` on `instance` derives, each one
   * that does (a direct assignment on the instance too), in instance and role order: what Permit's
   * authorized-users entries name. Every such assignment, not the one support a stored grant keeps,
   * so that the answer is the same now and as of any past position.
   */
  async assignmentsBehind(
    environmentId: string,
    instance: string,
    users: string[],
    roles: string[],
  ): Promise<Map<string, AssignmentDoc[]>> {
    const { rules, graph } = await this.goalGraph(environmentId, instance);
    const wanted = new Set(roles.map((role) => `${instance}#${role}`));
    const instances = unique([...graph.values()].map((n) => n.instance));
    const behind = new Map<string, AssignmentDoc[]>();
    for (const user of users) {
      const assignments = await this.assignmentsOn(environmentId, instances, user);
      const directOn = new Set(assignments.map((a) => `${a.user}|${a.resource_instance}`));
      const blocked = (to: GoalNode) => rules.guarded(typeOf(to.instance), to.role) && directOn.has(`${user}|${to.instance}`);
      const found = assignments.filter(
        (a) =>
          graph.has(`${a.resource_instance}#${a.role}`) &&
          this.carryDown(environmentId, user, [a], graph, blocked).some((g) => wanted.has(`${g.instance}#${g.role}`)),
      );
      found.sort((a, b) => byteOrder(`${a.resource_instance}#${a.role}`, `${b.resource_instance}#${b.role}`));
      behind.set(user, found);
    }
    return behind;
  }

  /** The goal graph of an instance: every (instance, role) from which a role on it derives, walked up its tuples, each feeding what it derives. */
  private async goalGraph(environmentId: string, instance: string): Promise<{ rules: Rules; graph: Map<string, GoalNode> }> {
    const rules = await this.rules(environmentId);
    const graph = new Map<string, GoalNode>();
    let frontier: GoalNode[] = [];
    const node = (ref: string, role: string): GoalNode => {
      const key = `${ref}#${role}`;
      let found = graph.get(key);
      if (!found) {
        found = { key, instance: ref, role, feeds: [] };
        graph.set(key, found);
        frontier.push(found);
      }
      return found;
    };
    for (const role of rules.roles) if (role.resource === typeOf(instance)) node(instance, role.key);
    while (frontier.length > 0) {
      const level = frontier.filter((n) => rules.incoming(typeOf(n.instance), n.role).length > 0);
      frontier = [];
      const edges = await this.edgesInto(environmentId, unique(level.map((n) => n.instance)));
      for (const target of level) {
        for (const edge of edges.get(target.instance) ?? []) {
          for (const rule of rules.incoming(typeOf(target.instance), target.role)) {
            if (rule.relation !== edge.relation || rule.onResource !== typeOf(edge.subject)) continue;
            node(edge.subject, rule.role).feeds.push({ to: target, edge, rule });
          }
        }
      }
    }
    return { rules, graph };
  }

  private async onInstance(environmentId: string, instance: string, user: string | null): Promise<GrantDoc[]> {
    const { rules, graph } = await this.goalGraph(environmentId, instance);
    const instances = unique([...graph.values()].map((n) => n.instance));
    const assignments = await this.assignmentsOn(environmentId, instances, user);
    const byUser = new Map<string, AssignmentDoc[]>();
    for (const a of assignments) {
      if (!graph.has(`${a.resource_instance}#${a.role}`)) continue;
      const list = byUser.get(a.user);
      if (list) list.push(a);
      else byUser.set(a.user, [a]);
    }
    // no_direct_roles_on_object: where a user holds a direct role (any), guarded roles are not derived for them.
    const directOn = new Set(assignments.map((a) => `${a.user}|${a.resource_instance}`));
    const grants: GrantDoc[] = [];
    for (const [holder, direct] of byUser) {
      const blocked = (to: GoalNode) => rules.guarded(typeOf(to.instance), to.role) && directOn.has(`${holder}|${to.instance}`);
      for (const g of this.carryDown(environmentId, holder, direct, graph, blocked)) {
        // Grants elsewhere are the supports of these: an explanation walks back through them (get).
        this.byId.set(g.id, g);
        if (g.instance === instance) grants.push(g);
      }
    }
    return grants;
  }

  /** Breadth first from a user's direct grants over the walked graph: every grant they hold in it, each with a shortest reason. */
  private carryDown(
    environmentId: string,
    user: string,
    direct: AssignmentDoc[],
    graph: Map<string, GoalNode>,
    blocked: (to: GoalNode) => boolean,
  ): GrantDoc[] {
    const held = new Map<string, GrantDoc>();
    let queue: Array<{ node: GoalNode; grant: GrantDoc }> = [];
    for (const a of direct) {
      const node = graph.get(`${a.resource_instance}#${a.role}`)!;
      if (held.has(node.key)) continue;
      const grant = this.directGrant(environmentId, a);
      held.set(node.key, grant);
      queue.push({ node, grant });
    }
    while (queue.length > 0) {
      const next: typeof queue = [];
      for (const { node, grant } of queue) {
        for (const { to, edge, rule } of node.feeds) {
          if (held.has(to.key) || grant.tenant !== edge.tenant || blocked(to)) continue;
          const derived = this.derivedGrant(environmentId, grant, edge, typeOf(to.instance), to.role, rule);
          held.set(to.key, derived);
          next.push({ node: to, grant: derived });
        }
      }
      queue = next;
    }
    return [...held.values()];
  }

  /** Every grant of `user`: from their resource-role assignments down the tuple graph, as the projection derives. */
  private async ofUser(environmentId: string, user: string): Promise<GrantDoc[]> {
    const rules = await this.rules(environmentId);
    const held = new Map<string, GrantDoc>();
    let frontier: GrantDoc[] = [];
    const assignments = await this.rm.assignments.find({ environment_id: environmentId, user });
    const directOn = new Set(assignments.map((a) => a.resource_instance));
    for (const a of assignments) {
      if (a.resource_instance === null || a._resource === null) continue;
      const grant = this.directGrant(environmentId, a);
      if (held.has(grant.id)) continue;
      held.set(grant.id, grant);
      frontier.push(grant);
    }
    while (frontier.length > 0) {
      const expanding = frontier.filter((g) => rules.outgoing(g.resource, g.role).length > 0);
      frontier = [];
      const subjects = unique(expanding.map((g) => g.instance));
      const bySubject = new Map<string, GrantDoc[]>();
      for (const g of expanding) bySubject.set(g.instance, [...(bySubject.get(g.instance) ?? []), g]);
      for (const chunk of chunks(subjects)) {
        const edges = await this.rm.tuples.find(
          { environment_id: environmentId, subject: { $in: chunk } },
          { fields: ['subject', 'relation', 'object', 'tenant'] },
        );
        for (const edge of edges as Edge[]) {
          for (const from of bySubject.get(edge.subject) ?? []) {
            if (from.tenant !== edge.tenant) continue;
            for (const target of rules.outgoing(from.resource, from.role)) {
              if (target.rule.relation !== edge.relation || target.resource !== typeOf(edge.object)) continue;
              if (rules.guarded(target.resource, target.role) && directOn.has(edge.object)) continue;
              const grant = this.derivedGrant(environmentId, from, edge, target.resource, target.role, target.rule);
              if (held.has(grant.id)) continue;
              held.set(grant.id, grant);
              frontier.push(grant);
            }
          }
        }
      }
    }
    return [...held.values()];
  }

  /** The tuples into each of `objects`, read once per request. */
  private async edgesInto(environmentId: string, objects: string[]): Promise<Map<string, Edge[]>> {
    const missing = objects.filter((o) => !this.tuplesInto.has(o));
    for (const chunk of chunks(missing)) {
      const read = this.rm.tuples
        .find({ environment_id: environmentId, object: { $in: chunk } }, { fields: ['subject', 'relation', 'object', 'tenant'] })
        .then((rows) => rows as Edge[]);
      for (const object of chunk)
        this.tuplesInto.set(
          object,
          read.then((rows) => rows.filter((r) => r.object === object)),
        );
    }
    const out = new Map<string, Edge[]>();
    for (const object of objects) out.set(object, await this.tuplesInto.get(object)!);
    return out;
  }

  private async assignmentsOn(environmentId: string, instances: string[], user: string | null): Promise<AssignmentDoc[]> {
    const found: AssignmentDoc[] = [];
    for (const chunk of chunks(instances)) {
      const filter: Filter = { environment_id: environmentId, resource_instance: { $in: chunk } };
      if (user !== null) filter.user = user;
      found.push(...(await this.rm.assignments.find(filter)));
    }
    return found;
  }

  private directGrant(environmentId: string, a: AssignmentDoc): GrantDoc {
    return {
      id: grantId(environmentId, a.user, a.resource_instance!, a.role),
      environment_id: environmentId,
      user: a.user,
      instance: a.resource_instance!,
      resource: a._resource ?? typeOf(a.resource_instance!),
      role: a.role,
      tenant: a.tenant,
      from_grant: null,
      reason: { kind: 'assignment', assignment_id: a.id },
      created_at: '',
      updated_at: '',
    };
  }

  private derivedGrant(environmentId: string, from: GrantDoc, edge: Edge, resource: string, role: string, rule: DerivationRule): GrantDoc {
    return {
      id: grantId(environmentId, from.user, edge.object, role),
      environment_id: environmentId,
      user: from.user,
      instance: edge.object,
      resource,
      role,
      tenant: edge.tenant,
      from_grant: from.id,
      reason: {
        kind: 'derivation',
        from_grant: from.id,
        tuple: { id: edge.id, subject: edge.subject, relation: edge.relation, object: edge.object },
        rule,
      },
      created_at: '',
      updated_at: '',
    };
  }
}

type Edge = Pick<TupleDoc, 'id' | 'subject' | 'relation' | 'object' | 'tenant'>;

/** A role on an instance a grant on the walked instance could come from; `feeds`: the (edge, rule) steps it gives roles along. */
interface GoalNode {
  key: string;
  instance: string;
  role: string;
  feeds: Array<{ to: GoalNode; edge: Edge; rule: DerivationRule }>;
}

/** The derivation rules of an environment's resource roles (as their documents hold them), indexed both ways. */
class Rules {
  private readonly byTarget = new Map<string, DerivationRule[]>();
  private readonly bySource = new Map<string, Array<{ resource: string; role: string; rule: DerivationRule }>>();

  private readonly guardedRoles = new Set<string>();

  constructor(readonly roles: RoleDoc[]) {
    for (const role of roles) {
      const resource = role.resource ?? '';
      if (role.granted_to.when.no_direct_roles_on_object === true) this.guardedRoles.add(`${resource}#${role.key}`);
      for (const r of role.granted_to.users_with_role) {
        const rule = { onResource: r.on_resource, role: r.role, relation: r.linked_by_relation };
        push(this.byTarget, `${resource}#${role.key}`, rule);
        push(this.bySource, `${rule.onResource}#${rule.role}`, { resource, role: role.key, rule });
      }
    }
  }

  /** Whether `role` carries no_direct_roles_on_object. */
  guarded(resource: string, role: string): boolean {
    return this.guardedRoles.has(`${resource}#${role}`);
  }

  /** Rules that grant `role` of `resource`. */
  incoming(resource: string, role: string): DerivationRule[] {
    return this.byTarget.get(`${resource}#${role}`) ?? [];
  }

  /** Rules through which a holder of `role` on a `resource` instance derives other roles. */
  outgoing(resource: string, role: string): Array<{ resource: string; role: string; rule: DerivationRule }> {
    return this.bySource.get(`${resource}#${role}`) ?? [];
  }
}

function push<V>(map: Map<string, V[]>, key: string, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
