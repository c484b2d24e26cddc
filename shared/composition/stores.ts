import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config';
import type { DocumentStore } from '../docstore/port';
import { SqliteDocumentStore } from '../docstore/sqlite-document-store';
import type { EventStore } from '../eventstore/port';
import { SqliteEventStore } from '../eventstore/sqlite-event-store';

/**
 * Picks each port's engine from the configuration. The distributed engines are
 * registered by their adapters' modules (see `registerEngine`); an engine that
 * is configured but not registered fails loudly.
 */
type Factory<T> = (config: Config) => Promise<T>;
const eventStoreEngines = new Map<string, Factory<EventStore>>([
  ['sqlite', async (c) => new SqliteEventStore({ path: c.EVENTS_SQLITE_PATH ?? join(ensureDir(c.DATA_DIR), 'events.sqlite') })],
]);
const documentStoreEngines = new Map<string, Factory<DocumentStore>>([
  ['sqlite', async (c) => new SqliteDocumentStore(c.READ_MODELS_SQLITE_PATH ?? join(ensureDir(c.DATA_DIR), 'read-models.sqlite'))],
]);

export function registerEventStoreEngine(name: string, factory: Factory<EventStore>): void {
  eventStoreEngines.set(name, factory);
}
export function registerDocumentStoreEngine(name: string, factory: Factory<DocumentStore>): void {
  documentStoreEngines.set(name, factory);
}

export async function createEventStore(config: Config): Promise<EventStore> {
  const factory = eventStoreEngines.get(config.EVENT_STORE);
  if (!factory) throw new Error(`event store engine '${config.EVENT_STORE}' is not available in this build`);
  return factory(config);
}

export async function createDocumentStore(config: Config): Promise<DocumentStore> {
  const factory = documentStoreEngines.get(config.READ_MODEL_STORE);
  if (!factory) throw new Error(`read model engine '${config.READ_MODEL_STORE}' is not available in this build`);
  return factory(config);
}

export function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}
