import { z } from 'zod';
import { parseSecretsKey } from './secrets/secret-box';
import { parsePostgresUrl } from './eventstore/postgres-connection';

/**
 * All configuration comes from environment variables, parsed once at start.
 * Each port picks its engine independently; the embedded engines are the
 * defaults, and an engine name we do not know fails loudly at start.
 */
const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(7766),
  HOST: z.string().default('127.0.0.1'),
  DATA_DIR: z.string().default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `json` (one object per line) or `pretty` (readable lines, pino-pretty); unset: pretty when stdout is a terminal, else json. */
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  /** When set, `GET /metrics` answers only `Authorization: Bearer <METRICS_TOKEN>`; unset, it is open like /healthz. */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** Event store engine: `sqlite` (embedded), `postgres` (the distributed mode's log) or `eventstoredb`. */
  EVENT_STORE: z.enum(['sqlite', 'postgres', 'eventstoredb']).default('sqlite'),
  EVENTSTORE_CONNECTION_STRING: z.string().optional(),
  /**
   * The PostgreSQL event log (EVENT_STORE=postgres): a libpq connection string, as a URI
   * (`postgres://user@host1:5432,host2:5432/rebac?target_session_attrs=read-write`) or keywords
   * (`host=host1,host2 dbname=rebac target_session_attrs=read-write`).
   */
  POSTGRES_URL: z
    .string()
    .optional()
    .superRefine((value, context) => {
      if (value === undefined) return;
      try {
        parsePostgresUrl(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message.replace(/^POSTGRES_URL: /, '') });
      }
    }),
  /** Connections each process keeps to PostgreSQL for reading the log (appends and notifications have one more each). */
  POSTGRES_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  /** SQLite event log path; default `${DATA_DIR}/events.sqlite`. Several processes may share it. */
  EVENTS_SQLITE_PATH: z.string().optional(),
  /** Read-model engine: `sqlite` (embedded), `mongodb`, or `postgres` (on POSTGRES_URL's server, docs/distributed.md). */
  READ_MODEL_STORE: z.enum(['sqlite', 'mongodb', 'postgres']).default('sqlite'),
  /**
   * With READ_MODEL_STORE=postgres: the schema the read models' tables (and the decision log's)
   * live in, made by the service; the event log's tables stay where the connection's search_path puts them.
   */
  POSTGRES_READ_MODELS_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,49}$/, 'a lower-case SQL name: letters, digits and _, not starting with a digit, at most 50')
    .default('read_models'),
  READ_MODELS_SQLITE_PATH: z.string().optional(),
  MONGODB_URL: z.string().optional(),
  MONGODB_DATABASE: z.string().default('rebac'),
  /** Task queue engine: `memory` (in-process, embedded) or `kafka`. */
  TASK_QUEUE: z.enum(['memory', 'kafka']).default('memory'),
  KAFKA_BROKERS: z.string().optional(),
  KAFKA_TOPIC_PREFIX: z.string().default('rebac'),
  /** Partitions of the task topic when the service creates it: the most task-service replicas that get work at once. */
  KAFKA_TASK_PARTITIONS: z.coerce.number().int().positive().default(6),
  /** Replication factor of the task topic when the service creates it (3 on a production cluster). */
  KAFKA_REPLICATION_FACTOR: z.coerce.number().int().positive().default(1),
  /** How long Kafka waits for a task-service replica that went silent before handing its partitions to another. */
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6000).default(10_000),
  /** Distributed mode: how long a lease on single-instance work (projection runner, outbox relay) outlives a crashed holder. */
  LEASE_TTL_MS: z.coerce.number().int().min(1000).default(15_000),
  /** Becomes the organisation API key on first start; otherwise one is generated into DATA_DIR. */
  ADMIN_API_KEY: z.string().min(16).optional(),
  /**
   * The key that seals secrets before they enter the event log (proxy configs' secrets): the
   * base64 of 32 bytes. Unset: DATA_DIR/secrets-key, generated there by the one-process service
   * (shared/secrets/secrets-key.ts).
   */
  SECRETS_KEY: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      const parsed = value === undefined ? null : parseSecretsKey(value);
      if (parsed && !parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.reason });
    }),
  /** Largest JSON body accepted, in bytes (larger: 413). */
  MAX_BODY_BYTES: z.coerce.number().int().positive().default(1_048_576),
  /**
   * Command-side state snapshots (a restart then folds only the events after the
   * latest one): taken every this many events per stream, and on shutdown. 0: off.
   */
  COMMAND_SNAPSHOT_EVERY: z.coerce.number().int().min(0).default(20_000),
  /** Where snapshots go; default `${DATA_DIR}/snapshots`. A local cache: each replica may have its own. */
  SNAPSHOT_DIR: z.string().optional(),
  /**
   * Permission decisions kept between requests while the read models stay at
   * one position (any projected event empties the cache, so answers stay
   * exact; see shared/read-cache.ts). 0: off, every check reads the store.
   */
  READ_CACHE_ENTRIES: z.coerce.number().int().min(0).default(100_000),
  /**
   * How often the expiry scheduler looks for ends due (docs/expiring-access.md), in milliseconds:
   * an expiry's event follows its end by about this much. 0: no scheduler in this process (checks
   * stay exact without it; the audit trail then lacks the expiries until one runs).
   */
  EXPIRY_POLL_MS: z.coerce.number().int().min(0).default(250),
  /**
   * Requests per second each API key may make, as a token bucket (beyond it:
   * 429 with Retry-After). Kept in memory per process: behind a load balancer,
   * N command-service replicas let a key make up to N times this. 0: off.
   */
  RATE_LIMIT_PER_KEY_RPS: z.coerce.number().min(0).default(0),
  /** How many requests a key may make at once above the rate (the bucket's size). 0: one second's worth (at least 1). */
  RATE_LIMIT_PER_KEY_BURST: z.coerce.number().int().min(0).default(0),
  /**
   * Processes answering HTTP in the one-process service: this one and HTTP_WORKERS - 1 check
   * workers, which answer permission checks on the other cores and forward everything else here
   * (app/check-workers.ts). `auto`: one per core (1 unless the event log and read models are
   * SQLite and no per-key rate limit is set).
   */
  HTTP_WORKERS: z.union([z.literal('auto'), z.coerce.number().int().min(1).max(256)]).default('auto'),
  /**
   * Where the one-process service runs its projections: `true` on a thread of their own (the
   * writes' HTTP, decisions and appends on the main thread, the projections on another core),
   * `false` on the main thread, `auto` (default): a thread when the event log and read models are
   * SQLite and the machine has more than one core (app/projection-thread.ts). The second heap
   * costs memory; `npm start` and the image hold it down with MALLOC_ARENA_MAX=2 (README).
   */
  PROJECTION_THREAD: z.enum(['auto', 'true', 'false']).default('auto'),
  /**
   * How far each V8 heap may grow past what its last full collection kept before it is collected
   * again, in percent (app/heap-growth.ts). 0: V8's own policy (up to 300% on a large machine).
   */
  HEAP_GROWTH_PERCENT: z.coerce.number().int().min(0).max(1000).default(50),
  /** How long a write waits for the read models to reflect it before answering anyway. */
  READ_YOUR_WRITES_TIMEOUT_MS: z.coerce.number().int().min(0).default(5000),
  /** Audit log streams (server-sent events): how often each reports its position with a `checkpoint` event. */
  AUDIT_STREAM_CHECKPOINT_MS: z.coerce.number().int().min(10).default(15_000),
  /** Most audit log streams one API process serves at once (more: 503). */
  AUDIT_MAX_STREAMS: z.coerce.number().int().min(0).default(100),
  /** The web console under `/ui` (the one-process service and the command service): `true` (default) or `false`. */
  UI_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** Where the built console is; default `dist/ui` of this installation (`npm run build` makes it). */
  UI_DIR: z.string().optional(),
  /**
   * Decision logs (docs/decision-logs.md): `full` (default) keeps an entry for every check,
   * `sampled` for a DECISION_LOG_SAMPLE_RATE share of them, `off` none (those kept stay readable).
   */
  DECISION_LOG: z.enum(['off', 'sampled', 'full']).default('full'),
  /** With DECISION_LOG=sampled: the probability that a check is kept, 0 to 1. */
  DECISION_LOG_SAMPLE_RATE: z.coerce.number().min(0).max(1).default(0.1),
  /** Entries older than this many days are deleted (decimals allowed). */
  DECISION_LOG_RETENTION_DAYS: z.coerce.number().positive().default(30),
  /** Most entries kept: beyond it the oldest are deleted. */
  DECISION_LOG_MAX_ENTRIES: z.coerce.number().int().positive().default(1_000_000),
  /** Entries waiting in memory for their batch; a check that finds it full is not logged, and is counted as dropped. */
  DECISION_LOG_BUFFER: z.coerce.number().int().positive().default(20_000),
  /** How often the waiting entries are written (the retention bound is applied every minute). */
  DECISION_LOG_FLUSH_MS: z.coerce.number().int().min(10).default(100),
  /** SQLite file of the decision log; default `${DATA_DIR}/decision-log.sqlite`. */
  DECISION_LOG_SQLITE_PATH: z.string().optional(),
});

export type Config = z.infer<typeof configSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const config = parsed.data;
  if (config.EVENT_STORE === 'eventstoredb' && !config.EVENTSTORE_CONNECTION_STRING)
    throw new Error('EVENT_STORE=eventstoredb needs EVENTSTORE_CONNECTION_STRING');
  if (config.EVENT_STORE === 'postgres' && !config.POSTGRES_URL) throw new Error('EVENT_STORE=postgres needs POSTGRES_URL');
  if (config.READ_MODEL_STORE === 'mongodb' && !config.MONGODB_URL) throw new Error('READ_MODEL_STORE=mongodb needs MONGODB_URL');
  if (config.READ_MODEL_STORE === 'postgres' && !config.POSTGRES_URL) throw new Error('READ_MODEL_STORE=postgres needs POSTGRES_URL');
  if (config.PROJECTION_THREAD === 'true' && (config.EVENT_STORE !== 'sqlite' || config.READ_MODEL_STORE !== 'sqlite'))
    throw new Error('PROJECTION_THREAD=true needs the SQLite event log and read models (EVENT_STORE=sqlite, READ_MODEL_STORE=sqlite)');
  if (config.TASK_QUEUE === 'kafka' && !config.KAFKA_BROKERS) throw new Error('TASK_QUEUE=kafka needs KAFKA_BROKERS');
  return config;
}
