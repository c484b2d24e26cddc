import { MongoClient, type Document } from 'mongodb';
import pino from 'pino';
import { buildProjections } from '../../../app/feature';
import { embeddedFeatures } from '../../../app/features';
import { ReadModels } from '../../../shared/read-models/read-models';
import { ProjectionRunner } from '../../../projection-service/runner';
import { MongoDocumentStore } from '../../../shared/docstore/mongo-document-store';
import type { Cluster } from '../../support/cluster';

/** Every read-model document of a database, by collection, sorted by id (checkpoints and leases left out). */
export async function snapshot(url: string, database: string): Promise<Record<string, Array<{ id: string }>>> {
  const client = await MongoClient.connect(url);
  try {
    const db = client.db(database);
    const names = (await db.listCollections({}, { nameOnly: true }).toArray())
      .map((c) => c.name)
      .filter((n) => n.startsWith('rm_') && n !== 'rm_checkpoints')
      .sort();
    const out: Record<string, Array<{ id: string }>> = {};
    for (const name of names) {
      const docs = await db.collection(name).find({}).toArray();
      out[name] = docs.map(documentOf).sort((a, b) => a.id.localeCompare(b.id));
    }
    return out;
  } finally {
    await client.close();
  }
}

/**
 * A read-model document as stored: the document store keeps it as its JSON in `_doc`; a domain
 * store (shared/read-stores, docs/read-stores.md) keeps its fields at the top level, by `_id`.
 */
function documentOf({ _id, _doc, ...fields }: Document): { id: string } {
  if (_doc !== undefined) return JSON.parse(String(_doc)) as { id: string };
  return { ...fields, id: String(_id) };
}

/**
 * Projects the whole event log from scratch into `<database>_rebuild`, with
 * the same projections the projection service runs, and returns its position.
 */
export async function rebuild(cluster: Cluster): Promise<number> {
  const events = await cluster.openEventLog();
  const store = await MongoDocumentStore.connect({ url: cluster.mongoUrl, database: `${cluster.database}_rebuild` });
  try {
    await store.dropAll();
    const runner = new ProjectionRunner(
      events,
      store,
      buildProjections(ReadModels.writer(store), embeddedFeatures()),
      pino({ level: 'silent' }),
    );
    await runner.start();
    const head = await events.headPosition();
    if (!(await runner.waitForPosition(head, 240_000))) throw new Error(`the rebuild did not reach ${head} (at ${runner.position})`);
    await runner.stop();
    return head;
  } finally {
    await store.close();
    await events.close();
  }
}
