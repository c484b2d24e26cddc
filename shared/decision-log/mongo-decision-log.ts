import { MongoClient, type Collection, type Filter } from 'mongodb';
import {
  resourceName,
  type DecisionEntry,
  type DecisionFilter,
  type DecisionLogStore,
  type DecisionPage,
  type DecisionPageRequest,
} from './port';

/** A stored entry: the filtered fields, and the entry as JSON (its free-form attributes may hold keys the server refuses). */
interface StoredDecision {
  _id: string;
  env: string;
  ts: number;
  api_key: string | null;
  query_type: string;
  user: string;
  action: string | null;
  resource_type: string | null;
  resource: string | null;
  tenant: string | null;
  decision: boolean | null;
  entry: string;
}

/** Each leads with the environment and ends with the time, as the reads filter and sort; `ts` alone for retention. */
const INDEXES: Array<Record<string, 1>> = [
  { env: 1, ts: 1 },
  { env: 1, user: 1, ts: 1 },
  { env: 1, decision: 1, ts: 1 },
  { env: 1, resource_type: 1, ts: 1 },
  { ts: 1 },
];

/** The decision log in a MongoDB collection of its own (`decision_log`), in the read models' database. */
export class MongoDecisionLog implements DecisionLogStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly entries: Collection<StoredDecision>,
  ) {}

  static async connect(options: { url: string; database: string }): Promise<MongoDecisionLog> {
    const client = new MongoClient(options.url, { ignoreUndefined: true, serverSelectionTimeoutMS: 10_000 });
    await client.connect();
    const entries = client.db(options.database).collection<StoredDecision>('decision_log');
    for (const key of INDEXES) await entries.createIndex(key);
    return new MongoDecisionLog(client, entries);
  }

  async append(entries: readonly DecisionEntry[]): Promise<void> {
    if (entries.length === 0) return;
    try {
      await this.entries.insertMany(entries.map(stored), { ordered: false });
    } catch (error) {
      // An entry appended twice (a retried batch) is kept once; anything else is an error.
      if (!isOnlyDuplicates(error)) throw error;
    }
  }

  async query(filter: DecisionFilter, page: DecisionPageRequest): Promise<DecisionPage> {
    const where = whereOf(filter);
    const direction = page.order === 'newest' ? -1 : 1;
    const [total, found] = await Promise.all([
      this.entries.countDocuments(where),
      this.entries
        .find(where, { projection: { entry: 1 } })
        .sort({ ts: direction, _id: direction })
        .skip((page.page - 1) * page.perPage)
        .limit(page.perPage)
        .toArray(),
    ]);
    return { entries: found.map((d) => JSON.parse(d.entry) as DecisionEntry), total };
  }

  async get(environmentId: string, id: string): Promise<DecisionEntry | null> {
    const found = await this.entries.findOne({ _id: id, env: environmentId });
    return found ? (JSON.parse(found.entry) as DecisionEntry) : null;
  }

  async deleteOlderThan(timestamp: number): Promise<number> {
    return (await this.entries.deleteMany({ ts: { $lt: timestamp } })).deletedCount;
  }

  async keepNewest(max: number): Promise<number> {
    const [edge] = await this.entries
      .find({}, { projection: { ts: 1 } })
      .sort({ ts: -1, _id: -1 })
      .skip(max - 1)
      .limit(1)
      .toArray();
    if (!edge) return 0;
    const older = { $or: [{ ts: { $lt: edge.ts } }, { ts: edge.ts, _id: { $lt: edge._id } }] };
    return (await this.entries.deleteMany(older)).deletedCount;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

function stored(e: DecisionEntry): StoredDecision {
  return {
    _id: e.id,
    env: e.environmentId,
    ts: e.timestamp,
    api_key: e.apiKeyId,
    query_type: e.queryType,
    user: e.user,
    action: e.action,
    resource_type: e.resourceType,
    resource: resourceName(e),
    tenant: e.tenant,
    decision: e.decision,
    entry: JSON.stringify(e),
  };
}

function whereOf(filter: DecisionFilter): Filter<StoredDecision> {
  const where: Filter<StoredDecision> = { env: filter.environmentId };
  if (filter.apiKeyIds) where.api_key = { $in: filter.apiKeyIds };
  if (filter.users) where.user = { $in: filter.users };
  if (filter.decision !== undefined) where.decision = filter.decision;
  if (filter.resources) where.$or = [{ resource_type: { $in: filter.resources } }, { resource: { $in: filter.resources } }];
  if (filter.tenant !== undefined) where.tenant = filter.tenant;
  if (filter.action !== undefined) where.action = filter.action;
  if (filter.queryType !== undefined) where.query_type = filter.queryType;
  if (filter.from !== undefined || filter.to !== undefined) {
    where.ts = { ...(filter.from !== undefined ? { $gte: filter.from } : {}), ...(filter.to !== undefined ? { $lte: filter.to } : {}) };
  }
  return where;
}

/** True for a bulk write error whose every failure is a duplicate key (code 11000). */
function isOnlyDuplicates(error: unknown): boolean {
  const failures = (error as { writeErrors?: Array<{ code?: number }> | { code?: number } }).writeErrors;
  if (failures === undefined) return (error as { code?: number }).code === 11000;
  return (Array.isArray(failures) ? failures : [failures]).every((f) => f.code === 11000);
}
