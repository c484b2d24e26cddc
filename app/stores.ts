import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../shared/config';
import { ensureDir } from '../shared/data-dir';
import type { DecisionLogStore } from '../shared/decision-log/port';
import { SqliteDecisionLog } from '../shared/decision-log/sqlite-decision-log';
import type { DocumentStore } from '../shared/docstore/port';
import { SqliteDocumentStore } from '../shared/docstore/sqlite-document-store';
import type { AppendObserver, EventStore } from '../shared/eventstore/port';
import { SqliteEventStore } from '../shared/eventstore/sqlite-event-store';
import { registerTaskQueueEngine } from '../shared/taskqueue/engines';

/**
 * Picks each port's engine from the configuration; an engine that is
 * configured but not registered fails loudly. The distributed engines
 * (PostgreSQL, EventStoreDB, MongoDB, Kafka) are loaded lazily, so the embedded default
 * never loads their drivers.
 */
type Factory<T> = (config: Config) => Promise<T>;
/** An event store engine; `observer` (metrics) is told of its appends. */
type EventStoreFactory = (config: Config, observer?: AppendObserver) => Promise<EventStore>;
const eventStoreEngines = new Map<string, EventStoreFactory>([
  ['sqlite', async (c, observer) => new SqliteEventStore({ path: sqliteEventsPath(c), observer })],
  [
    'postgres',
    async (c, observer) => {
      const { PostgresEventStore } = await import('../shared/eventstore/postgres-event-store');
      return PostgresEventStore.connect({ url: required(c.POSTGRES_URL, 'POSTGRES_URL'), poolSize: c.POSTGRES_POOL_SIZE, observer });
    },
  ],
  [
    'eventstoredb',
    async (c, observer) => {
      const { EventStoreDbEventStore } = await import('../shared/eventstore/eventstoredb-event-store');
      return EventStoreDbEventStore.connect({
        connectionString: required(c.EVENTSTORE_CONNECTION_STRING, 'EVENTSTORE_CONNECTION_STRING'),
        observer,
      });
    },
  ],
]);
const documentStoreEngines = new Map<string, Factory<DocumentStore>>([
  ['sqlite', async (c) => openSharedSqliteStore(sqliteReadModelsPath(c))],
  [
    'mongodb',
    async (c) => {
      const { MongoDocumentStore } = await import('../shared/docstore/mongo-document-store');
      return MongoDocumentStore.connect({ url: required(c.MONGODB_URL, 'MONGODB_URL'), database: c.MONGODB_DATABASE });
    },
  ],
  [
    'postgres',
    async (c) => {
      const { PostgresDocumentStore } = await import('../shared/docstore/postgres-document-store');
      return PostgresDocumentStore.connect({
        url: required(c.POSTGRES_URL, 'POSTGRES_URL'),
        schema: c.POSTGRES_READ_MODELS_SCHEMA,
        poolSize: c.POSTGRES_POOL_SIZE,
      });
    },
  ],
]);

/**
 * The decision log's store, on the read models' engine: a SQLite file of its own beside theirs,
 * a collection of their MongoDB database, or a table in their PostgreSQL schema.
 */
export async function createDecisionLogStore(c: Config): Promise<DecisionLogStore> {
  if (c.READ_MODEL_STORE === 'postgres') {
    const { PostgresDecisionLog } = await import('../shared/decision-log/postgres-decision-log');
    return PostgresDecisionLog.connect({ url: required(c.POSTGRES_URL, 'POSTGRES_URL'), schema: c.POSTGRES_READ_MODELS_SCHEMA });
  }
  if (c.READ_MODEL_STORE === 'mongodb') {
    const { MongoDecisionLog } = await import('../shared/decision-log/mongo-decision-log');
    return MongoDecisionLog.connect({ url: required(c.MONGODB_URL, 'MONGODB_URL'), database: c.MONGODB_DATABASE });
  }
  return new SqliteDecisionLog(c.DECISION_LOG_SQLITE_PATH ?? join(ensureDir(c.DATA_DIR), 'decision-log.sqlite'));
}

/** Whether the read models are on a server several machines' replicas share (anything but the SQLite file). */
export const sharedReadModels = (c: Config): boolean => c.READ_MODEL_STORE !== 'sqlite';

/** The SQLite event log's file (the embedded default). */
export const sqliteEventsPath = (c: Config): string => c.EVENTS_SQLITE_PATH ?? join(ensureDir(c.DATA_DIR), 'events.sqlite');

/** The SQLite read models' file (the embedded default). */
export const sqliteReadModelsPath = (c: Config): string => c.READ_MODELS_SQLITE_PATH ?? join(ensureDir(c.DATA_DIR), 'read-models.sqlite');

/**
 * Registers the Kafka task queue (TASK_QUEUE=kafka). Composition roots call it
 * again with their logger, so the client's warnings reach the service log.
 */
export function registerKafkaTaskQueue(logger?: Logger): void {
  registerTaskQueueEngine('kafka', async (c) => {
    const { KafkaTaskQueue } = await import('../shared/taskqueue/kafka-task-queue');
    return KafkaTaskQueue.connect({
      brokers: required(c.KAFKA_BROKERS, 'KAFKA_BROKERS')
        .split(',')
        .map((b) => b.trim())
        .filter(Boolean),
      topic: `${c.KAFKA_TOPIC_PREFIX}.tasks`,
      clientId: c.KAFKA_TOPIC_PREFIX,
      partitions: c.KAFKA_TASK_PARTITIONS,
      replicationFactor: c.KAFKA_REPLICATION_FACTOR,
      sessionTimeoutMs: c.KAFKA_SESSION_TIMEOUT_MS,
      logger,
    });
  });
}
registerKafkaTaskQueue();

function required(value: string | undefined, name: string): string {
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

export function registerEventStoreEngine(name: string, factory: EventStoreFactory): void {
  eventStoreEngines.set(name, factory);
}
export function registerDocumentStoreEngine(name: string, factory: Factory<DocumentStore>): void {
  documentStoreEngines.set(name, factory);
}

export async function createEventStore(config: Config, observer?: AppendObserver): Promise<EventStore> {
  const factory = eventStoreEngines.get(config.EVENT_STORE);
  if (!factory) throw new Error(`event store engine '${config.EVENT_STORE}' is not available in this build`);
  return factory(config, observer);
}

export async function createDocumentStore(config: Config): Promise<DocumentStore> {
  const factory = documentStoreEngines.get(config.READ_MODEL_STORE);
  if (!factory) throw new Error(`read model engine '${config.READ_MODEL_STORE}' is not available in this build`);
  return factory(config);
}

/**
 * One SQLite read-model store per file in a process, shared by the services
 * composed there (the tests start the command, projection and task services in
 * one process). Two writing connections to one file on one thread deadlock
 * until the busy timeout: a write on one meets the other's open batch
 * transaction, and SQLite's busy handler sleeps the thread that would end it.
 * Shared, the store's own rule holds instead (a write waits for the open
 * transaction). Each handle closes once; the last closes the file.
 */
const sharedSqliteStores = new Map<string, { store: SqliteDocumentStore; handles: number }>();

function openSharedSqliteStore(path: string): DocumentStore {
  const entry = sharedSqliteStores.get(path) ?? { store: new SqliteDocumentStore(path), handles: 0 };
  sharedSqliteStores.set(path, entry);
  entry.handles += 1;
  const { store } = entry;
  let closed = false;
  return {
    get atomicTransactions() {
      return store.atomicTransactions;
    },
    collection: (spec) => store.collection(spec),
    transaction: (work) => store.transaction(work),
    writerView: () => store.writerView(),
    stores: () => store.stores(),
    loadCheckpoint: (name) => store.loadCheckpoint(name),
    saveCheckpoint: (name, expected, next) => store.saveCheckpoint(name, expected, next),
    dropAll: () => store.dropAll(),
    async close() {
      if (closed) return;
      closed = true;
      entry.handles -= 1;
      if (entry.handles > 0) return;
      sharedSqliteStores.delete(path);
      await store.close();
    },
  };
}
