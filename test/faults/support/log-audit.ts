import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedEvent } from '../../../shared/events';
import type { EventStore } from '../../../shared/eventstore/port';
import { SqliteEventStore } from '../../../shared/eventstore/sqlite-event-store';
import { startTestServer, type ApiClient, type TestServer } from '../../support/embedded-server';
import { writeIdentity, type WriteAttempt } from './write-load';

/** Every event of the log, in its order. */
export async function readWholeLog(events: EventStore): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  for (;;) {
    const page = await events.readAll(all.at(-1)?.position ?? 0, 2000);
    all.push(...page);
    if (page.length < 2000) return all;
  }
}

/** The load's writes as the log holds them: how many times each identity (writeIdentity) was stored. */
export function storedWrites(log: RecordedEvent[], environmentStream: string): Map<string, number> {
  const counts = new Map<string, number>();
  const count = (identity: string) => counts.set(identity, (counts.get(identity) ?? 0) + 1);
  for (const event of log) {
    if (event.streamId !== environmentStream) continue;
    const data = event.data as Record<string, string>;
    if (event.type === 'ResourceInstanceCreated' && data.resource === 'file') count(writeIdentity.instance(data.key!));
    if (event.type === 'RelationshipTupleCreated' && data.subject === 'folder:docs' && data.relation === 'parent')
      count(writeIdentity.tuple(data.object!.replace(/^file:/, '')));
    if (event.type === 'RoleAssigned' && data.role === 'viewer') count(`assignment ${data.user} viewer ${data.resourceInstance}`);
  }
  return counts;
}

export interface WriteCounts {
  attempted: number;
  acknowledged: number;
  /** Acknowledged writes the log holds (exactly once each, or they are duplicates too). */
  found: number;
  /** Acknowledged writes the log does not hold. */
  missing: string[];
  /** Writes of the load the log holds more than once. */
  duplicates: string[];
  /** Refused or unanswered writes (outcome unknown to the client) that the log holds, once. */
  unacknowledgedStored: number;
}

/** Compares the load's writes with the log: every acknowledged one once, none twice. */
export function countWrites(writes: WriteAttempt[], stored: Map<string, number>): WriteCounts {
  const counts: WriteCounts = { attempted: writes.length, acknowledged: 0, found: 0, missing: [], duplicates: [], unacknowledgedStored: 0 };
  for (const write of writes) {
    const identity = writeIdentity[write.kind](write.file);
    const times = stored.get(identity) ?? 0;
    if (times > 1) counts.duplicates.push(`${identity} ×${times}`);
    if (write.status === 200) {
      counts.acknowledged += 1;
      if (times >= 1) counts.found += 1;
      else counts.missing.push(identity);
    } else if (times >= 1) {
      counts.unacknowledgedStored += 1;
    }
  }
  return counts;
}

/**
 * A fresh one-process service fed the same log: the log copied event by event, in its order, into
 * a new SQLite log, and the embedded service started on it with empty read models (built from the
 * log at start). Close it after use.
 */
export async function freshServiceOn(log: RecordedEvent[], adminKey: string): Promise<TestServer & { dispose(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rebac-fresh-'));
  const copy = new SqliteEventStore({ path: join(dataDir, 'events.sqlite') });
  try {
    for (let i = 0; i < log.length;) {
      const first = log[i]!;
      let end = i + 1;
      while (end < log.length && log[end]!.streamId === first.streamId) end += 1;
      const batch = log.slice(i, end).map(({ type, data, metadata }) => ({ type, data, metadata }));
      await copy.append(first.streamId, batch, first.streamVersion === 0 ? 'no_stream' : first.streamVersion - 1);
      i = end;
    }
  } finally {
    await copy.close();
  }
  const server = await startTestServer({ dataDir, env: { ADMIN_API_KEY: adminKey } });
  return {
    ...server,
    async dispose() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface FileCheck {
  user: { key: string };
  action: string;
  resource: { type: string; key: string; tenant: string };
}

/** What the load's writes make checkable for each file: alice (editor of its folder) writes, its viewer reads but does not write. */
export function checksOfFiles(files: string[]): FileCheck[] {
  const resource = (key: string) => ({ type: 'file', key, tenant: 'acme' });
  return files.flatMap((file) => [
    { user: { key: 'alice' }, action: 'write', resource: resource(file) },
    { user: { key: `u-${file}` }, action: 'read', resource: resource(file) },
    { user: { key: `u-${file}` }, action: 'write', resource: resource(file) },
  ]);
}

/** The answers of `/allowed/bulk`, in chunks its limit takes. */
export async function bulkAllowed(api: ApiClient, checks: FileCheck[]): Promise<boolean[]> {
  const answers: boolean[] = [];
  for (let i = 0; i < checks.length; i += 500) {
    const r = await api.post('/allowed/bulk', checks.slice(i, i + 500));
    if (r.status !== 200) throw new Error(`/allowed/bulk answered ${r.status}: ${JSON.stringify(r.body)}`);
    answers.push(...(r.body as { allow: Array<{ allow: boolean }> }).allow.map((a) => a.allow));
  }
  return answers;
}
