import type { DerivationRule } from '../../events';
import { sameRule, type RuleEntry, type RulesDoc } from './model';

const roleOf = (resource: string, role: string) => `${resource}#${role}`;

/**
 * The derivation rules of one environment, indexed both ways: by the role a
 * rule grants (to re-derive a grant: which supports could it have?) and by the
 * role a rule starts from (to expand a grant: what does it give?).
 */
export class RuleIndex {
  private readonly entries: RuleEntry[];
  private byTarget = new Map<string, RuleEntry[]>();
  private bySource = new Map<string, RuleEntry[]>();
  private byLink = new Map<string, RuleEntry[]>();
  /** `resource#role` of the roles with `no_direct_roles_on_object`. */
  private readonly guardedRoles: Set<string>;
  /** Set by every change, so the projection stores the index only when it changed. */
  changed = false;

  /** False for an index stored before sink roles were implied (RulesDoc.sinks_implied). */
  private impliedSinks: boolean;

  constructor(entries: RuleEntry[] = [], guarded: string[] = [], sinksImplied = true) {
    this.entries = [...entries];
    this.guardedRoles = new Set(guarded);
    this.impliedSinks = sinksImplied;
    this.reindex();
  }

  /** Whether the read model holds no derived grant of a sink role (see RulesDoc.sinks_implied). */
  get sinksImplied(): boolean {
    return this.impliedSinks;
  }

  markSinksImplied(): void {
    if (this.impliedSinks) return;
    this.impliedSinks = true;
    this.changed = true;
  }

  /** The index from its stored document (or an empty one). */
  static of(doc: RulesDoc | null): RuleIndex {
    return doc ? new RuleIndex(doc.rules, doc.guarded ?? [], doc.sinks_implied === true) : new RuleIndex();
  }

  /** The document that stores the index. */
  toDoc(environmentId: string): RulesDoc {
    return {
      id: environmentId,
      environment_id: environmentId,
      rules: this.all(),
      guarded: this.guarded(),
      sinks_implied: this.impliedSinks,
    };
  }

  guarded(): string[] {
    return [...this.guardedRoles];
  }

  /** Whether derivations of `role` skip a user on an instance where the user holds a direct role. */
  /** Whether any role is guarded (`no_direct_roles_on_object`). */
  hasGuarded(): boolean {
    return this.guardedRoles.size > 0;
  }

  isGuarded(resource: string, role: string): boolean {
    return this.guardedRoles.size > 0 && this.guardedRoles.has(roleOf(resource, role));
  }

  /** The guarded roles of one resource type. */
  guardedOf(resource: string): string[] {
    const prefix = `${resource}#`;
    return [...this.guardedRoles].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
  }

  /** Sets or clears a role's condition; false if it was so already. */
  setGuarded(resource: string, role: string, on: boolean): boolean {
    const key = roleOf(resource, role);
    if (this.guardedRoles.has(key) === on) return false;
    if (on) this.guardedRoles.add(key);
    else this.guardedRoles.delete(key);
    this.changed = true;
    return true;
  }

  all(): RuleEntry[] {
    return [...this.entries];
  }

  /** Rules that grant `role` of `resource`. */
  incoming(resource: string, role: string): RuleEntry[] {
    return this.byTarget.get(roleOf(resource, role)) ?? [];
  }

  /** Rules through which a holder of `role` on a `resource` instance derives other roles. */
  outgoing(resource: string, role: string): RuleEntry[] {
    return this.bySource.get(roleOf(resource, role)) ?? [];
  }

  /**
   * Whether no rule starts from `role` of `resource`: its grants derive nothing further, so the
   * projection stores none of them that are derived (they are implied, and read through the
   * tuples and the grants they come from: command-service/grant-queries/effective-grants.ts).
   */
  isSink(resource: string, role: string): boolean {
    return this.outgoing(resource, role).length === 0;
  }

  /** The rules from `role` of `resource` whose grants are stored (their role is no sink): what the projection derives along. */
  storedOutgoing(resource: string, role: string): RuleEntry[] {
    return this.outgoing(resource, role).filter((entry) => !this.isSink(entry.resource, entry.role));
  }

  /** Rules a tuple `(subjectType:…, relation, objectType:…)` can carry a role along. */
  along(subjectType: string, relation: string, objectType: string): RuleEntry[] {
    return this.byLink.get(`${subjectType}#${relation}#${objectType}`) ?? [];
  }

  has(entry: RuleEntry): boolean {
    return this.incoming(entry.resource, entry.role).some((e) => sameRule(e.rule, entry.rule));
  }

  /** Adds a rule; false if it was there already. */
  add(entry: RuleEntry): boolean {
    if (this.has(entry)) return false;
    this.entries.push(entry);
    this.reindex();
    this.changed = true;
    return true;
  }

  /** Removes the entries matching `predicate`; returns them. */
  removeWhere(predicate: (entry: RuleEntry) => boolean): RuleEntry[] {
    const removed = this.entries.filter(predicate);
    if (removed.length === 0) return [];
    const kept = this.entries.filter((e) => !predicate(e));
    this.entries.splice(0, this.entries.length, ...kept);
    this.reindex();
    this.changed = true;
    return removed;
  }

  /** Makes `rules` the whole rule list of one role; returns what changed. */
  replace(resource: string, role: string, rules: DerivationRule[]): { added: RuleEntry[]; removed: RuleEntry[] } {
    const current = this.incoming(resource, role);
    const removedRules = current.filter((e) => !rules.some((r) => sameRule(r, e.rule)));
    const removed = this.removeWhere((e) => removedRules.includes(e));
    const added: RuleEntry[] = [];
    for (const rule of rules) {
      const entry = { resource, role, rule };
      if (this.add(entry)) added.push(entry);
    }
    return { added, removed };
  }

  private reindex(): void {
    this.byTarget = new Map();
    this.bySource = new Map();
    this.byLink = new Map();
    for (const entry of this.entries) {
      push(this.byTarget, roleOf(entry.resource, entry.role), entry);
      push(this.bySource, roleOf(entry.rule.onResource, entry.rule.role), entry);
      push(this.byLink, `${entry.rule.onResource}#${entry.rule.relation}#${entry.resource}`, entry);
    }
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
