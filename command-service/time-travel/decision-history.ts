import { GrantQueries } from '../grant-queries/grant-queries';
import type { Explanation, GrantedBy } from '../grant-queries/check';
import type { ChainStep } from '../grant-queries/explain';
import type { CheckRequest } from '../grant-queries/types';
import type { DerivationRule, RecordedEvent } from '../../shared/events';
import { isDomainEvent, isEventOf } from '../../shared/events';
import type { EventStore } from '../../shared/eventstore/port';
import { OPEN, type HistoryCollections, type Version } from '../../shared/read-models/history/history';
import { typeOf } from '../../shared/read-models/grants/model';
import type { ReadModels, RoleDoc } from '../../shared/read-models/read-models';
import { attributeChanges, attributeChangeText, type AttributeChange } from './attribute-changes';
import { presentAuditEntry, type AuditEntry } from '../audit/audit-log';
import { presentEventData, type PresentedData } from '../audit/present-event';

/** A role that permits the action, as the explanation names it (with its chain, for resource roles). */
export type PermittingRole = GrantedBy;

/** How the event that changed the answer touches it: which permitting role, and where in its chain. */
export interface CauseLink {
  /** What of the role's support the event is: its tuple, its assignment, a rule, the role's permissions, the role, the instance. */
  what: 'tuple' | 'assignment' | 'rule' | 'permissions' | 'role' | 'instance';
  role: string;
  /** The instance the role is held on (resource roles) or the tenant (tenant roles). */
  on: string;
  /** The role gained (found in the explanation after the event) or lost (before it). */
  side: 'gained' | 'lost';
  /** Index of the step in the role's chain (root, the assignment, is 0). */
  step?: number;
  /** For a tuple: how many tuples up from the resource it sits (1: the tuple into the resource itself). */
  hops_up?: number;
  /**
   * For a link in a resource role's chain: the role held where the event sits (a tuple's or rule's: the role
   * on the instance above it, which the tuple carries down; an assignment's: the role assigned)...
   */
  from?: { role: string; resource_instance: string };
  /** ...and the path from there down to the resource: each tuple's relation and the instance it leads to. */
  via?: Array<{ relation: string; resource_instance: string }>;
}

export interface DecisionChange {
  position: number;
  /** When the event that changed it was accepted. */
  time: string;
  allow: boolean;
  /** False when the decision stayed and only the roles that permit it changed. */
  decision_changed: boolean;
  roles_gained: PermittingRole[];
  roles_lost: PermittingRole[];
  /** The event, as the audit log shows it (`GET /v2/events/...`): the API's vocabulary, the actor as `{type, id, name}`. */
  event: AuditEntry;
  /** When the event was one of a cascade: the delete the request made, whose dependants went first. */
  cascade_of?: { type: string; position: number; data: PresentedData };
  cause: { summary: string; links: CauseLink[] };
  /** The attributes (of a user, tenant or instance) the event changed, old → new: what flips a set rule. */
  attribute_changes: AttributeChange[];
  explanation: Explanation;
}

export interface DecisionHistory {
  initial: { position: number; allow: boolean; explanation: Explanation };
  changes: DecisionChange[];
  /** How many positions of the range could change the answer (and were evaluated). */
  evaluated: number;
}

export interface DecisionHistoryDeps {
  history: HistoryCollections;
  eventStore: EventStore;
  /** The read models as of a position. */
  readsAt(position: number): ReadModels;
}

/** Removal events that a delete of another object emits first, as its cascade. */
const CASCADE_ROOTS = new Set(['ResourceInstanceDeleted', 'TenantDeleted', 'RoleDeleted', 'RelationDeleted', 'ResourceDeleted']);
/** Events of a cascade scanned at most, to find the delete it belongs to. */
const CASCADE_SCAN = 20_000;

/**
 * The history of one decision over `[since, until]` (log positions): the
 * answer at `since`, then every change of the answer — of `allow`, or of the
 * roles that permit it — with the event that caused it and the explanation
 * then.
 *
 * Only positions that can change the answer are evaluated: the boundaries of
 * the versions a check reads, over the range — the resource instance; the
 * user's assignments; the tuples into every instance on the resource's
 * ancestor paths (walked up over every tuple and rule version of the range,
 * so ancestors gained and lost along the way are in it); the resource roles of
 * the types on those paths (permissions, derivation rules); the top-level
 * roles. Between two such positions nothing a check reads changes, so
 * neither does the answer.
 */
export async function decisionHistory(
  deps: DecisionHistoryDeps,
  environmentId: string,
  question: CheckRequest,
  since: number,
  until: number,
): Promise<DecisionHistory> {
  const candidates = await positionsThatMatter(deps.history, environmentId, question, since, until);
  const decide = (position: number) => GrantQueries.over(deps.readsAt(position)).check(environmentId, question, true);
  const first = await decide(since);
  let previous = { position: since, allow: first.allow, explanation: first.explanation! };
  const changes: DecisionChange[] = [];
  for (const position of candidates) {
    const { allow, explanation } = await decide(position);
    const gained = explanation!.granted_by.filter((g) => !previous.explanation.granted_by.some((p) => sameRole(p, g)));
    const lost = previous.explanation.granted_by.filter((p) => !explanation!.granted_by.some((g) => sameRole(p, g)));
    if (allow !== previous.allow || gained.length > 0 || lost.length > 0) {
      changes.push(await changeAt(deps, environmentId, position, { allow, explanation: explanation! }, previous, gained, lost));
    }
    previous = { position, allow, explanation: explanation! };
  }
  return { initial: { position: since, allow: first.allow, explanation: first.explanation! }, changes, evaluated: candidates.length };
}

const roleKey = (g: GrantedBy) =>
  g.kind === 'set_rule' ? `s ${g.set_rule}` : g.kind === 'tenant_role' ? `t ${g.role} ${g.tenant}` : `r ${g.role} ${g.resource_instance}`;
const sameRole = (a: GrantedBy, b: GrantedBy) => roleKey(a) === roleKey(b);

/** The positions in `(since, until]` where a version the check reads begins or ends. */
async function positionsThatMatter(
  history: HistoryCollections,
  environmentId: string,
  question: CheckRequest,
  since: number,
  until: number,
): Promise<number[]> {
  const env = { environment_id: environmentId };
  const boundaries: Array<Version<unknown>> = [];
  const { type, key } = question.resource;

  // The resource roles (their permissions and rules) of every version in the range; the rules as a union.
  const resourceRoles = await history.resourceRoles.overlapping(env, since, until);
  const incoming = new Map<string, DerivationRule[]>();
  for (const role of resourceRoles) {
    for (const r of role.granted_to.users_with_role) {
      const list = incoming.get(`${role.resource}#${role.key}`) ?? [];
      list.push({ onResource: r.on_resource, role: r.role, relation: r.linked_by_relation });
      incoming.set(`${role.resource}#${role.key}`, list);
    }
  }

  // Up from the instance over every tuple of the range that a rule of the range could carry a role along.
  const instances = new Set<string>();
  const types = new Set<string>([type]);
  if (key !== null) {
    const ref = `${type}:${key}`;
    boundaries.push(...(await history.instances.overlapping({ ...env, resource: type, key }, since, until)));
    const seen = new Set<string>();
    let frontier = unique(resourceRoles.filter((r) => r.resource === type).map((r) => `${ref}#${r.key}`));
    frontier.forEach((n) => seen.add(n));
    instances.add(ref);
    while (frontier.length > 0) {
      const next: string[] = [];
      const objects = unique(frontier.map((n) => n.slice(0, n.lastIndexOf('#'))));
      const tuples: Array<Version<{ subject: string; relation: string; object: string }>> = [];
      for (const chunk of chunks(objects))
        tuples.push(...(await history.tuples.overlapping({ ...env, object: { $in: chunk } }, since, until)));
      for (const node of frontier) {
        const instance = node.slice(0, node.lastIndexOf('#'));
        const role = node.slice(node.lastIndexOf('#') + 1);
        for (const rule of incoming.get(`${typeOf(instance)}#${role}`) ?? []) {
          for (const tuple of tuples) {
            if (tuple.object !== instance || tuple.relation !== rule.relation || typeOf(tuple.subject) !== rule.onResource) continue;
            boundaries.push(tuple);
            const from = `${tuple.subject}#${rule.role}`;
            instances.add(tuple.subject);
            types.add(rule.onResource);
            if (!seen.has(from)) {
              seen.add(from);
              next.push(from);
            }
          }
        }
      }
      frontier = next;
    }
  }
  boundaries.push(...resourceRoles.filter((r: RoleDoc) => r.resource !== undefined && types.has(r.resource)));
  boundaries.push(...(await history.roles.overlapping(env, since, until)));
  const assignments = await history.assignments.overlapping({ ...env, user: question.user }, since, until);
  boundaries.push(...assignments.filter((a) => a.resource_instance === null || instances.has(a.resource_instance)));

  // Set rules (ABAC) granting the permission at some point of the range: their sets and rules, and the
  // attributes they read (the user's and the tenants'; the instance's are above, the user's roles too).
  const setRules = await history.setRules.overlapping(env, since, until);
  if (setRules.some((r) => r.permission === `${type}:${question.action}`)) {
    boundaries.push(...setRules, ...(await history.conditionSets.overlapping(env, since, until)));
    boundaries.push(...(await history.users.overlapping({ ...env, key: question.user }, since, until)));
    boundaries.push(...(await history.tenants.overlapping(env, since, until)));
  }

  const positions = new Set<number>();
  for (const v of boundaries) {
    if (v._from > since && v._from <= until) positions.add(v._from);
    if (v._to !== OPEN && v._to > since && v._to <= until) positions.add(v._to);
  }
  return [...positions].sort((a, b) => a - b);
}

async function changeAt(
  deps: DecisionHistoryDeps,
  environmentId: string,
  position: number,
  now: { allow: boolean; explanation: Explanation },
  before: { allow: boolean; explanation: Explanation },
  gained: GrantedBy[],
  lost: GrantedBy[],
): Promise<DecisionChange> {
  const [event] = await deps.eventStore.readAll(position - 1, 1);
  if (!event || event.position !== position) throw new Error(`no event at position ${position}`);
  const links = [...linksOf(event, gained, 'gained'), ...linksOf(event, lost, 'lost')];
  const cascade = await cascadeOf(deps.eventStore, event);
  const attributes = await attributeChanges(event, environmentId, (p) => deps.readsAt(p));
  const rules = setRulesOf(gained, 'gained').concat(setRulesOf(lost, 'lost'));
  return {
    position,
    time: event.metadata.timestamp,
    allow: now.allow,
    decision_changed: now.allow !== before.allow,
    roles_gained: gained,
    roles_lost: lost,
    event: await asAuditEntry(deps, event),
    ...(cascade ? { cascade_of: cascade } : {}),
    cause: { summary: summaryOf(event, now.allow, before.allow, links, cascade, [...rules, ...attributes.map(attributeText)]), links },
    attribute_changes: attributes,
    explanation: now.explanation,
  };
}

/** The event as the audit log presents it, with its actor's name (the API key's, as the log names it now). */
async function asAuditEntry(deps: DecisionHistoryDeps, event: RecordedEvent): Promise<AuditEntry> {
  const keyId = event.metadata.actor;
  const names = new Map<string, string | null>();
  if (keyId !== null) names.set(keyId, (await deps.readsAt(event.position).apiKeys.get(keyId))?.name || null);
  return presentAuditEntry(event, names);
}

/**
 * Where a link at `index` of a resource role's chain sits: the role held there (the one the tuple or rule
 * carries down, or the one assigned) and the tuples from there down to the resource.
 */
function pathFrom(chain: ChainStep[], index: number): Pick<CauseLink, 'from' | 'via'> {
  const step = chain[index];
  if (!step || step.step === 'missing_support') return {};
  const from =
    step.step === 'role_assignment'
      ? { role: step.role, resource_instance: step.resource_instance }
      : { role: step.from.role, resource_instance: step.from.resource_instance };
  const via: NonNullable<CauseLink['via']> = [];
  for (const later of chain.slice(step.step === 'role_assignment' ? index + 1 : index)) {
    if (later.step === 'role_derivation') via.push({ relation: later.tuple.relation, resource_instance: later.resource_instance });
  }
  return { from, via };
}

/** `editor on folder:acme-eng, via parent → document:roadmap` (a link without a path: nothing). */
function pathText(link: CauseLink): string {
  if (!link.from) return '';
  const via = (link.via ?? []).map((v) => `${v.relation} → ${v.resource_instance}`).join(', ');
  return ` (${link.from.role} on ${link.from.resource_instance}${via ? `, via ${via}` : ''})`;
}

/** Where the event sits in the support of the roles gained (their chains after it) or lost (before it). */
function linksOf(event: RecordedEvent, roles: GrantedBy[], side: 'gained' | 'lost'): CauseLink[] {
  if (!isEventOf('env', event)) return [];
  const links: CauseLink[] = [];
  const on = (g: Exclude<GrantedBy, { kind: 'set_rule' }>) => (g.kind === 'tenant_role' ? `__tenant:${g.tenant}` : g.resource_instance);
  for (const g of roles) {
    // A set rule's support (its sets, their conditions, the attributes) is not traced to events here.
    if (g.kind === 'set_rule') continue;
    const base = { role: g.role, on: on(g), side };
    if (g.kind === 'tenant_role') {
      const d = event.data as { id?: string; key?: string; resource?: string | null };
      if (ASSIGNMENT_EVENTS.has(event.type) && d.id === g.assignment_id) links.push({ ...base, what: 'assignment' });
      if ((event.type === 'RoleUpdated' || event.type === 'RoleExtendsReplaced') && d.resource === null && d.key === g.role)
        links.push({ ...base, what: 'permissions' });
      if ((event.type === 'RoleCreated' || event.type === 'RoleDeleted') && d.resource === null && d.key === g.role)
        links.push({ ...base, what: 'role' });
      if ((event.type === 'ResourceInstanceCreated' || event.type === 'ResourceInstanceDeleted') && `${d.resource}:${d.key}` === on(g))
        links.push({ ...base, what: 'instance' });
      continue;
    }
    switch (event.type) {
      case 'RoleUpdated':
      case 'RoleExtendsReplaced':
      case 'RoleCreated':
      case 'RoleDeleted':
        if (event.data.resource === typeOf(g.resource_instance) && event.data.key === g.role)
          links.push({ ...base, what: event.type === 'RoleCreated' || event.type === 'RoleDeleted' ? 'role' : 'permissions' });
        break;
      default:
        g.chain.forEach((step, index) => {
          if (matchesStep(event, step)) {
            const what = whatOf(event.type);
            links.push({
              ...base,
              what,
              step: index,
              ...(what === 'tuple' ? { hops_up: g.chain.length - index } : {}),
              ...pathFrom(g.chain, index),
            });
          }
        });
    }
  }
  return links;
}

function whatOf(type: string): CauseLink['what'] {
  if (type.startsWith('RelationshipTuple')) return 'tuple';
  if (type.startsWith('Role') && type !== 'RoleDerivationsReplaced' && type !== 'RoleDerivationConditionsSet') return 'assignment';
  if (type.startsWith('Resource')) return 'instance';
  return 'rule';
}

function matchesStep(event: RecordedEvent, step: ChainStep): boolean {
  if (!isEventOf('env', event)) return false;
  switch (event.type) {
    case 'RelationshipTupleCreated':
    case 'RelationshipTupleDeleted':
    case 'RelationshipTupleExpirySet':
    case 'RelationshipTupleExpired': {
      const d = event.data;
      return (
        step.step === 'role_derivation' &&
        step.tuple.subject === d.subject &&
        step.tuple.relation === d.relation &&
        step.tuple.object === d.object
      );
    }
    case 'RoleAssigned':
    case 'RoleUnassigned':
    case 'RoleAssignmentExpirySet':
    case 'RoleAssignmentExpired':
      return step.step === 'role_assignment' && step.assignment_id === event.data.id;
    case 'ImplicitGrantAdded':
    case 'ImplicitGrantRemoved': {
      const { rule, key, resource } = event.data;
      return (
        step.step === 'role_derivation' &&
        step.role === key &&
        typeOf(step.resource_instance) === resource &&
        step.rule.role === rule.role &&
        step.rule.on_resource === rule.onResource &&
        step.rule.linked_by_relation === rule.relation
      );
    }
    case 'RoleDerivationsReplaced':
    case 'RoleDerivationConditionsSet': // no_direct_roles_on_object: set or lifted on the derived role
      return step.step === 'role_derivation' && step.role === event.data.key && typeOf(step.resource_instance) === event.data.resource;
    case 'ResourceInstanceCreated':
    case 'ResourceInstanceDeleted':
      return step.step !== 'missing_support' && step.resource_instance === `${event.data.resource}:${event.data.key}`;
    default:
      return false;
  }
}

/**
 * The delete whose cascade this event is part of: the request's last event in
 * the stream, when it is a delete of another kind (a deleted instance's tuples
 * and assignments go before it, a role's assignments and the rules using it…).
 */
async function cascadeOf(store: EventStore, event: RecordedEvent): Promise<DecisionChange['cascade_of'] | undefined> {
  const requestId = event.metadata.requestId;
  if (!requestId || !/Deleted$|Unassigned$|Removed$|Replaced$/.test(event.type)) return undefined;
  let last: RecordedEvent | null = null;
  for (let from = event.streamVersion + 1, scanned = 0; scanned < CASCADE_SCAN;) {
    const page = await store.readStream(event.streamId, from, 500);
    const same = page.findIndex((e) => e.metadata.requestId !== requestId);
    const ours = same < 0 ? page : page.slice(0, same);
    if (ours.length > 0) last = ours.at(-1)!;
    if (same >= 0 || page.length < 500) break;
    from += page.length;
    scanned += page.length;
  }
  if (!last || last.type === event.type || !CASCADE_ROOTS.has(last.type)) return undefined;
  return { type: last.type, position: last.position, data: isDomainEvent(last) ? presentEventData(last) : {} };
}

/** The set rules gained or lost, for the summary (their support is conditions over attributes, not a chain of events). */
function setRulesOf(roles: GrantedBy[], side: 'gained' | 'lost'): string[] {
  return roles
    .filter((g) => g.kind === 'set_rule')
    .map(
      (g) =>
        `set rule '${g.set_rule}' (user set '${g.user_set}' on resource set '${g.resource_set}') ${side === 'gained' ? 'now matches' : 'no longer matches'}`,
    );
}

const attributeText = (c: AttributeChange) => `${c.of} '${c.key}' ${attributeChangeText(c)}`;

function summaryOf(
  event: RecordedEvent,
  allow: boolean,
  before: boolean,
  links: CauseLink[],
  cascade: DecisionChange['cascade_of'] | undefined,
  more: string[],
): string {
  const what = allow === before ? `the roles permitting it changed (still ${allow ? 'allowed' : 'denied'})` : allow ? 'allowed' : 'denied';
  // An expiry (docs/expiring-access.md) took effect at its end, a moment before its event.
  const ended =
    event.type === 'RoleAssignmentExpired' || event.type === 'RelationshipTupleExpired'
      ? (event.data as { expiresAt: string }).expiresAt
      : null;
  const how = ended === null ? '' : ` expired at ${ended} and`;
  const described = links.map((l) => {
    const where = l.side === 'gained' ? 'gave' : 'took away';
    const role = `role '${l.role}' on '${l.on}'`;
    switch (l.what) {
      case 'tuple':
        return `the tuple ${l.hops_up} hop(s) up from the resource${how} ${where} ${role}${pathText(l)}`;
      case 'assignment':
        return `the assignment${how} ${where} ${role}${pathText(l)}`;
      case 'rule':
        return `the derivation rule (step ${l.step}) ${where} ${role}${pathText(l)}`;
      case 'permissions':
        return `the permissions of ${role} changed`;
      default:
        return `the ${l.what} ${where} ${role}${pathText(l)}`;
    }
  });
  const via = cascade ? `, in the cascade of ${cascade.type} at position ${cascade.position}` : '';
  described.push(...more);
  return `${what} by ${event.type}${via}${described.length > 0 ? `: ${described.join('; ')}` : ''}`;
}

/** The events of one role assignment's life: they change what it supports. */
const ASSIGNMENT_EVENTS: ReadonlySet<string> = new Set([
  'RoleAssigned',
  'RoleUnassigned',
  'RoleAssignmentExpirySet',
  'RoleAssignmentExpired',
]);

const unique = <T>(values: T[]): T[] => [...new Set(values)];

function chunks<T>(values: T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += size) out.push(values.slice(i, i + size));
  return out;
}
