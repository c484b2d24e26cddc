import type { Collection as MongoCollection, Db, Filter as MongoFilter } from 'mongodb';
import type { GrantDoc, GrantIdRange, GrantNarrowing, GrantStore, HeldRole, HoldersPage, RulesDoc } from './port';
import { byBytes, grantOfRecord, recordOf, rulesOfText, rulesText, type GrantRecord } from './rows';

/** A grant as MongoDB keeps it: the record every engine stores (rows.ts), keyed by `_id`, its null fields left out. */
type StoredGrant = Partial<Omit<GrantRecord, 'id'>> & { _id: string };
interface StoredRules {
  _id: string;
  rules: string;
}

/** `rm_` like every read-model collection: a rebuild empties them too. */
const GRANTS = 'rm_grant_rows';
const RULES = 'rm_grant_rules';
/** The index of an instance's holders (in user order, then role) and of a user's grants on given instances. */
const HOLDERS_INDEX = 'holders';
const HOLDERS_KEYS = { environment_id: 1, instance: 1, user: 1, role: 1, expires_at: 1 } as const;

/**
 * The grants' read store on MongoDB (or FerretDB): the collections `rm_grant_rows` (by `_id`, the grant's
 * id, whose ranges are one user's grants; and the holders index) and `rm_grant_rules` (by
 * environment). No transactions here (the document store's are not atomic): the projection's writes
 * are idempotent, and a replayed batch ends where it ended.
 */
export class MongoGrantStore implements GrantStore {
  private readonly grants: MongoCollection<StoredGrant>;
  private readonly rulesCollection: MongoCollection<StoredRules>;
  private indexed: Promise<void> | null = null;

  /** @param bulkChunk writes per bulkWrite (FerretDB answers no large ordered one: MongoDocumentStore) */
  constructor(
    db: Db,
    private readonly bulkChunk: number,
  ) {
    this.grants = db.collection<StoredGrant>(GRANTS);
    this.rulesCollection = db.collection<StoredRules>(RULES);
  }

  async get(id: string): Promise<GrantDoc | null> {
    const stored = await this.grants.findOne({ _id: id });
    return stored ? grantOfStored(stored) : null;
  }

  async byIds(ids: readonly string[]): Promise<GrantDoc[]> {
    if (ids.length === 0) return [];
    return this.read({ _id: { $in: [...ids] } });
  }

  async userRange(range: GrantIdRange, narrowing: GrantNarrowing = {}, page: { limit?: number; skip?: number } = {}): Promise<GrantDoc[]> {
    let cursor = this.grants.find({ _id: { $gt: range.after, $lt: range.before }, ...narrowed(narrowing) }).sort({ _id: 1 });
    if (page.skip) cursor = cursor.skip(page.skip);
    if (page.limit !== undefined) {
      if (page.limit === 0) return [];
      cursor = cursor.limit(page.limit);
    }
    return (await cursor.toArray()).map(grantOfStored);
  }

  async countUserRange(range: GrantIdRange, narrowing: GrantNarrowing = {}, atMost?: number): Promise<number> {
    if (atMost === 0) return 0;
    return this.grants.countDocuments(
      { _id: { $gt: range.after, $lt: range.before }, ...narrowed(narrowing) },
      atMost === undefined ? {} : { limit: atMost },
    );
  }

  async holders(environmentId: string, instance: string, page: HoldersPage = {}): Promise<GrantDoc[]> {
    if (page.users !== undefined && page.users.length === 0) return [];
    if (page.limit === 0) return [];
    await this.ready();
    const user: Record<string, unknown> = {};
    if (page.afterUser !== undefined) user.$gt = page.afterUser;
    if (page.users !== undefined) user.$in = [...page.users];
    const filter: MongoFilter<StoredGrant> = {
      environment_id: environmentId,
      instance,
      ...(Object.keys(user).length > 0 ? { user } : {}),
      ...narrowed(page),
    };
    let cursor = this.grants.find(filter).sort({ user: 1, role: 1 });
    if (page.limit !== undefined) cursor = cursor.limit(page.limit);
    return (await cursor.toArray()).map(grantOfStored);
  }

  async userOn(environmentId: string, user: string, instances: readonly string[], narrowing: GrantNarrowing = {}): Promise<GrantDoc[]> {
    if (instances.length === 0) return [];
    await this.ready();
    const instance = instances.length === 1 ? instances[0] : { $in: [...instances] };
    const grants = await this.read({ environment_id: environmentId, instance, user, ...narrowed(narrowing) });
    return grants.sort((a, b) => byBytes(a.id, b.id));
  }

  async rolesOn(environmentId: string, user: string, instance: string, roles?: readonly string[]): Promise<HeldRole[]> {
    await this.ready();
    const found = await this.grants
      .find({ environment_id: environmentId, instance, user, ...narrowed({ roles }) }, { projection: { _id: 1, role: 1, expires_at: 1 } })
      .sort({ role: 1 })
      .toArray();
    return found.map((g) => ({ id: g._id, role: g.role!, expires_at: g.expires_at ?? null }));
  }

  async onInstances(environmentId: string, instances: readonly string[], limit: number): Promise<GrantDoc[]> {
    if (instances.length === 0 || limit === 0) return [];
    await this.ready();
    const found = await this.grants
      .find({ environment_id: environmentId, instance: { $in: [...instances] } })
      .limit(limit)
      .toArray();
    return found.map(grantOfStored);
  }

  async ofEnvironment(environmentId: string): Promise<GrantDoc[]> {
    await this.ready();
    return (await this.read({ environment_id: environmentId })).sort((a, b) => byBytes(a.id, b.id));
  }

  count(): Promise<number> {
    return this.grants.countDocuments({});
  }

  async insertMissing(grants: readonly GrantDoc[]): Promise<GrantDoc[]> {
    if (grants.length === 0) return [];
    await this.ready();
    const inserted: GrantDoc[] = [];
    for (let i = 0; i < grants.length; i += this.bulkChunk) {
      const chunk = grants.slice(i, i + this.bulkChunk);
      // Ordered upserts that only set on insert: a stored grant is left as it is, and the result's
      // upserted ids say which ones were new (of a repeated id, the first was inserted).
      const result = await this.grants.bulkWrite(
        chunk.map((grant) => {
          const { _id, ...fields } = storedOf(grant);
          return { updateOne: { filter: { _id }, update: { $setOnInsert: fields }, upsert: true } };
        }),
        { ordered: true },
      );
      // By id, not by operation index: FerretDB numbers the upserts among themselves.
      const upserted = new Set(Object.values(result.upsertedIds).map(String));
      for (const grant of chunk) if (upserted.delete(grant.id)) inserted.push(grant);
    }
    return inserted;
  }

  async put(grants: readonly GrantDoc[]): Promise<void> {
    if (grants.length === 0) return;
    await this.ready();
    for (let i = 0; i < grants.length; i += this.bulkChunk) {
      const chunk = grants.slice(i, i + this.bulkChunk);
      await this.grants.bulkWrite(
        chunk.map((grant) => {
          const stored = storedOf(grant);
          return { replaceOne: { filter: { _id: stored._id }, replacement: stored, upsert: true } };
        }),
        { ordered: true },
      );
    }
  }

  async delete(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return (await this.grants.deleteMany({ _id: { $in: [...new Set(ids)] } })).deletedCount;
  }

  async rules(environmentId: string): Promise<RulesDoc | null> {
    const stored = await this.rulesCollection.findOne({ _id: environmentId });
    return stored ? rulesOfText(environmentId, stored.rules) : null;
  }

  async putRules(rules: RulesDoc): Promise<void> {
    await this.rulesCollection.replaceOne({ _id: rules.id }, { rules: rulesText(rules) }, { upsert: true });
  }

  private async read(filter: MongoFilter<StoredGrant>): Promise<GrantDoc[]> {
    return (await this.grants.find(filter).toArray()).map(grantOfStored);
  }

  /**
   * The holders index, made once on first use. FerretDB 1.x drops the connection on two concurrent
   * `createIndexes` for one collection (several processes starting at once): a failed attempt is
   * retried after looking again at what exists.
   */
  private ready(): Promise<void> {
    this.indexed ??= (async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          const existing = await this.grants
            .listIndexes()
            .toArray()
            .catch(() => []);
          if (!existing.some((index: { name?: unknown }) => index.name === HOLDERS_INDEX)) {
            await this.grants.createIndex(HOLDERS_KEYS, { name: HOLDERS_INDEX });
          }
          return;
        } catch (error) {
          if (attempt >= 5) throw error;
          await new Promise((r) => setTimeout(r, 50 * attempt + Math.random() * 100));
        }
      }
    })().catch((error: unknown) => {
      this.indexed = null;
      throw error;
    });
    return this.indexed;
  }
}

/** The narrowing as conditions on the stored fields. */
function narrowed(narrowing: GrantNarrowing): Record<string, { $in: string[] }> {
  const out: Record<string, { $in: string[] }> = {};
  if (narrowing.roles) out.role = { $in: [...narrowing.roles] };
  if (narrowing.tenants) out.tenant = { $in: [...narrowing.tenants] };
  if (narrowing.resources) out.resource = { $in: [...narrowing.resources] };
  return out;
}

function storedOf(grant: GrantDoc): StoredGrant {
  const { id, ...fields } = recordOf(grant);
  const stored: StoredGrant = { _id: id };
  for (const [key, value] of Object.entries(fields)) if (value !== null) (stored as Record<string, unknown>)[key] = value;
  return stored;
}

function grantOfStored({ _id, ...fields }: StoredGrant): GrantDoc {
  return grantOfRecord({
    id: _id,
    from_grant: null,
    assignment_id: null,
    tuple_id: null,
    rule_on_resource: null,
    rule_role: null,
    rule_relation: null,
    expires_at: null,
    ...fields,
  } as GrantRecord);
}
