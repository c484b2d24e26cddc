import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '../shared/docstore/sqlite-document-store';
import { answersCheckpoint } from '../shared/read-models/answer-changes';
import { ReplicaFreshness } from './replica-freshness';

/** A check worker's freshness, read from the read models another process writes. */
describe('ReplicaFreshness', () => {
  let dir: string;
  let writer: SqliteDocumentStore;
  let replica: SqliteDocumentStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'replica-freshness-'));
    writer = new SqliteDocumentStore(join(dir, 'read-models.sqlite'));
    replica = SqliteDocumentStore.replica(join(dir, 'read-models.sqlite'));
  });
  afterEach(async () => {
    await replica.close();
    await writer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A new turn of the event loop: the replica's reads see the last commit (SqliteDocumentStore). */
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('keeps the decisions by where answers last changed, as the runner stored it, and everything else by the position', async () => {
    const freshness = new ReplicaFreshness(replica);
    const view = writer.writerView();
    await view.saveCheckpoint('read-models', null, 10);
    await nextTurn();
    // Nothing stored yet (an older release's read models): the position stands in.
    expect(freshness.position).toBe(10);
    expect(freshness.lastChangeOf('answers')).toBe(10);

    await view.transaction(async () => {
      await view.saveCheckpoint(answersCheckpoint('read-models'), null, 8);
      await view.saveCheckpoint('read-models', 10, 12);
    });
    await nextTurn();
    expect(freshness.position).toBe(12);
    expect(freshness.lastChangeOf('answers')).toBe(8);
    expect(freshness.lastChangeOf('schema')).toBe(12);
    expect(freshness.lastChangeOf('organisation')).toBe(12);
  });
});
