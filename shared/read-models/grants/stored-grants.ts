import type { Collection, Filter, FindOptions } from '../../docstore/port';
import type { DerivationRule } from '../../events';
import { instanceOfGrantId, type GrantDoc, type GrantReason } from './model';

/**
 * A derivation's reason as stored: the tuple's id and the rule, without what the grant's own
 * fields already say. Its `from_grant` is the grant's `from_grant`; the tuple's subject is the
 * instance of that grant, its object the grant's instance, its relation the rule's (a rule
 * derives along tuples of its relation only). A grant row is written for every derived role
 * (100,000 in one fan-out), and these were a large part of its bytes.
 */
interface StoredDerivation {
  kind: 'derivation';
  tuple: string;
  rule: DerivationRule;
}

/** A grant as stored: a derivation's reason in its short form (rows written before it have the whole reason). */
export type StoredGrant = Omit<GrantDoc, 'reason'> & { reason: GrantReason | StoredDerivation };

export function storedGrant(grant: GrantDoc): StoredGrant {
  const reason = grant.reason;
  if (reason.kind !== 'derivation') return grant;
  return { ...grant, reason: { kind: 'derivation', tuple: reason.tuple.id, rule: reason.rule } };
}

/** The grant a stored row holds (a partial read, without `reason`, comes back as it is). */
export function grantOf(stored: StoredGrant): GrantDoc {
  const reason = stored.reason;
  if (reason === undefined || reason.kind !== 'derivation' || typeof reason.tuple !== 'string') return stored as GrantDoc;
  const from = stored.from_grant!;
  return {
    ...stored,
    reason: {
      kind: 'derivation',
      from_grant: from,
      tuple: { id: reason.tuple, subject: instanceOfGrantId(from), relation: reason.rule.relation, object: stored.instance },
      rule: reason.rule,
    },
  };
}

/** The grants collection as GrantDocs, over rows that store derivations short (see StoredDerivation). */
export class GrantRows implements Collection<GrantDoc> {
  constructor(private readonly rows: Collection<StoredGrant>) {}

  async get(id: string): Promise<GrantDoc | null> {
    const stored = await this.rows.get(id);
    return stored && grantOf(stored);
  }

  async findOne(filter: Filter): Promise<GrantDoc | null> {
    const stored = await this.rows.findOne(filter);
    return stored && grantOf(stored);
  }

  async find(filter: Filter, options?: FindOptions): Promise<GrantDoc[]> {
    return (await this.rows.find(filter, options)).map(grantOf);
  }

  count(filter: Filter): Promise<number> {
    return this.rows.count(filter);
  }

  put(grant: GrantDoc): Promise<void> {
    return this.rows.put(storedGrant(grant));
  }

  putMany(grants: GrantDoc[]): Promise<void> {
    return this.rows.putMany(grants.map(storedGrant));
  }

  async insertMissing(grants: GrantDoc[]): Promise<GrantDoc[]> {
    const inserted = await this.rows.insertMissing(grants.map(storedGrant));
    if (inserted.length === 0) return [];
    // Every one (a fan-out's usual case; with a repeated id, fewer come back).
    if (inserted.length === grants.length) return grants;
    // The grants given, not the rows: of two with one id, the first is the one inserted.
    const given = new Map<string, GrantDoc>();
    for (const grant of grants) if (!given.has(grant.id)) given.set(grant.id, grant);
    return inserted.map((row) => given.get(row.id)!);
  }

  delete(id: string): Promise<void> {
    return this.rows.delete(id);
  }

  deleteMany(filter: Filter): Promise<number> {
    return this.rows.deleteMany(filter);
  }
}
