import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, memoryOf, ROOT, type Memory } from './child';
import type { Check, Dataset } from './dataset';
import { bulkSend, range } from './load-ours';

const run = promisify(execFile);
const SCRIPT = join(ROOT, 'scripts', 'spicedb.sh');

/**
 * The same model as ours (and as OPENFGA_MODEL) in SpiceDB's schema language:
 * editor and viewer are roles held by users on folders and documents; a
 * document's `parent` is a folder. A folder's viewers include its editors; a
 * document's editors are its direct editors and its parent folder's editors;
 * its viewers are its direct viewers, its editors and its parent folder's
 * viewers. `read` checks `view`, `write` checks `edit`.
 */
export const SPICEDB_SCHEMA = `definition user {}

definition folder {
  relation editor: user
  relation viewer: user
  permission edit = editor
  permission view = viewer + edit
}

definition document {
  relation parent: folder
  relation editor: user
  relation viewer: user
  permission edit = editor + parent->edit
  permission view = viewer + edit + parent->view
}
`;

export const permissionOf = (action: Check['action']) => (action === 'read' ? 'view' : 'edit');

export type SpiceDbDatastore = 'memory' | 'postgres';
export type PeerCaches = 'shipped' | 'warm';

export interface SpiceDb {
  url: string;
  key: string;
  pid: number;
  headers: Record<string, string>;
  memory(): Memory | null;
  stop(): Promise<void>;
}

/** The `spicedb` binary built by `scripts/spicedb.sh install`, or null when it is not there. */
export async function spicedbBinary(): Promise<string | null> {
  try {
    return (await run('bash', [SCRIPT, 'bin'], { cwd: ROOT })).stdout.trim() || null;
  } catch {
    return null;
  }
}

/**
 * `scripts/spicedb.sh start` on free loopback ports: in memory, or on a PostgreSQL database
 * (`uri`, migrated by the script), with SpiceDB's shipped caches or the warm ones; `instance`
 * names its run dir so that several run at once.
 */
export async function startSpiceDb(options: {
  datastore: SpiceDbDatastore;
  uri?: string;
  caches: PeerCaches;
  instance: string;
}): Promise<SpiceDb> {
  const env = {
    ...process.env,
    SPICEDB_DATASTORE: options.datastore,
    SPICEDB_DATASTORE_URI: options.uri ?? '',
    SPICEDB_CACHES: options.caches,
    SPICEDB_INSTANCE: options.instance,
    SPICEDB_HTTP_PORT: String(await freePort()),
    SPICEDB_GRPC_PORT: String(await freePort()),
  };
  const { stdout } = await run('bash', [SCRIPT, 'start'], { cwd: ROOT, env });
  const url = /SPICEDB_URL=(\S+)/.exec(stdout)?.[1];
  const key = /SPICEDB_KEY=(\S+)/.exec(stdout)?.[1];
  if (!url || !key) throw new Error(`spicedb.sh start printed no SPICEDB_URL/SPICEDB_KEY: ${stdout}`);
  const runDir = join(process.env.SERVERS_RUN_DIR ?? '/tmp/rebac-test-servers', options.instance);
  const pid = Number(readFileSync(join(runDir, 'spicedb.pid'), 'utf8').trim());
  return {
    url,
    key,
    pid,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    memory: () => memoryOf(pid),
    stop: async () => {
      await run('bash', [SCRIPT, 'stop'], { cwd: ROOT, env });
    },
  };
}

async function post(db: SpiceDb, path: string, body: unknown): Promise<any> {
  const response = await fetch(`${db.url}${path}`, { method: 'POST', headers: db.headers, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${db.url}${path} → ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

export interface LoadedSpiceDb {
  relationships: number;
  loadMs: number;
  /** A ZedToken at (or after) the last write: checks ask for a snapshot at least as fresh. */
  token: string;
}

const object = (ref: string) => {
  const [objectType, objectId] = ref.split(':') as [string, string];
  return { objectType, objectId };
};

const relationship = (resource: string, relation: string, subject: string) => ({
  operation: 'OPERATION_CREATE',
  relationship: { resource: object(resource), relation, subject: { object: object(subject) } },
});

/**
 * The schema and the data set's relationships (the same as OpenFGA's tuples), through
 * `WriteRelationships` in calls of 1,000 (SpiceDB's default limit per call), 4 in flight.
 * The token is read with a fully consistent check after the last write answered.
 */
export async function loadSpiceDb(db: SpiceDb, data: Dataset): Promise<LoadedSpiceDb> {
  await post(db, '/v1/schema/write', { schema: SPICEDB_SCHEMA });
  const relationships = function* () {
    yield* range(data.size.documents, (d) => relationship(`document:d${d}`, 'parent', `folder:f${data.parentOf(d)}`));
    for (const a of data.assignments) yield relationship(a.instance, a.role, `user:${a.user}`);
  };
  const loaded = await bulkSend(relationships(), 1000, 4, (updates) => post(db, '/v1/relationships/write', { updates }));
  const head = await post(db, '/v1/permissions/check', {
    consistency: { fullyConsistent: true },
    resource: { objectType: 'document', objectId: 'd0' },
    permission: 'view',
    subject: { object: { objectType: 'user', objectId: 'u0' } },
  });
  const token = head.checkedAt?.token ?? head.checked_at?.token;
  if (!token) throw new Error(`SpiceDB's check answered no checkedAt token: ${JSON.stringify(head)}`);
  return { relationships: loaded.objects, loadMs: loaded.ms, token };
}

/**
 * A check at a snapshot at least as fresh as `token` (what a client that wrote the data sends,
 * so it sees its writes): SpiceDB then reads the snapshot of the current quantization window
 * (5 s as shipped), so its dispatch cache, keyed by snapshot, starts over with each window.
 * `pinned` (the warm process) asks for the token's own snapshot (`atExactSnapshot`), so every
 * check reads one snapshot and the cache holds. The warm process's 1 h window alone did not pin
 * it: windows are aligned to the clock, and a run whose checks crossed 12:00 read a new snapshot
 * from there, cold (docs/bench-history/2026-11-29.md, 11:42).
 */
export const spicedbCheckBody = (token: string, c: Check, pinned = false) => ({
  consistency: pinned ? { atExactSnapshot: { token } } : { atLeastAsFresh: { token } },
  resource: { objectType: 'document', objectId: c.document },
  permission: permissionOf(c.action),
  subject: { object: { objectType: 'user', objectId: c.user } },
});

export function spicedbAllowed(answer: any): boolean {
  switch (answer.permissionship) {
    case 'PERMISSIONSHIP_HAS_PERMISSION':
      return true;
    case 'PERMISSIONSHIP_NO_PERMISSION':
      return false;
    default:
      throw new Error(`SpiceDB answered permissionship ${String(answer.permissionship)}`);
  }
}

export async function spicedbCheck(db: SpiceDb, token: string, c: Check): Promise<boolean> {
  return spicedbAllowed(await post(db, '/v1/permissions/check', spicedbCheckBody(token, c)));
}
