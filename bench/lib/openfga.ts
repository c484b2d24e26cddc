import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, memoryOf, ROOT, type Memory } from './child';
import type { Check, Dataset } from './dataset';
import { bulkSend, range } from './load-ours';
import type { PeerCaches } from './spicedb';

const run = promisify(execFile);
const SCRIPT = join(ROOT, 'scripts', 'openfga.sh');

/**
 * The same model as ours in OpenFGA's language: a document's viewers are its
 * direct viewers, its editors and its parent folder's viewers; its editors are
 * its direct editors and its parent folder's editors; a folder's viewers
 * include its editors. `read` checks `viewer`, `write` checks `editor`.
 */
export const OPENFGA_MODEL = {
  schema_version: '1.1',
  type_definitions: [
    { type: 'user' },
    {
      type: 'folder',
      relations: {
        editor: { this: {} },
        viewer: { union: { child: [{ this: {} }, { computedUserset: { relation: 'editor' } }] } },
      },
      metadata: {
        relations: {
          editor: { directly_related_user_types: [{ type: 'user' }] },
          viewer: { directly_related_user_types: [{ type: 'user' }] },
        },
      },
    },
    {
      type: 'document',
      relations: {
        parent: { this: {} },
        editor: {
          union: {
            child: [{ this: {} }, { tupleToUserset: { tupleset: { relation: 'parent' }, computedUserset: { relation: 'editor' } } }],
          },
        },
        viewer: {
          union: {
            child: [
              { this: {} },
              { computedUserset: { relation: 'editor' } },
              { tupleToUserset: { tupleset: { relation: 'parent' }, computedUserset: { relation: 'viewer' } } },
            ],
          },
        },
      },
      metadata: {
        relations: {
          parent: { directly_related_user_types: [{ type: 'folder' }] },
          editor: { directly_related_user_types: [{ type: 'user' }] },
          viewer: { directly_related_user_types: [{ type: 'user' }] },
        },
      },
    },
  ],
};

export const relationOf = (action: Check['action']) => (action === 'read' ? 'viewer' : 'editor');
export const openfgaCheckBody = (modelId: string, c: Check) => ({
  authorization_model_id: modelId,
  tuple_key: { user: `user:${c.user}`, relation: relationOf(c.action), object: `document:${c.document}` },
});

/** The `openfga` binary built by `scripts/openfga.sh install`, or null when it is not there. */
export async function openfgaBinary(): Promise<string | null> {
  try {
    return (await run('bash', [SCRIPT, 'bin'], { cwd: ROOT })).stdout.trim() || null;
  } catch {
    return null;
  }
}

export interface OpenFga {
  url: string;
  pid: number;
  memory(): Memory | null;
  stop(): Promise<void>;
}

/**
 * `scripts/openfga.sh start` on free loopback ports, on a PostgreSQL database (`uri`, migrated
 * by the script; or in memory, or on a SQLite file in its run dir), with OpenFGA's shipped
 * caches (check caches off) or the warm ones; `instance` names its run dir so that several run
 * at once.
 */
export async function startOpenFga(options: {
  datastore: 'postgres' | 'memory' | 'sqlite';
  uri?: string;
  caches: PeerCaches;
  instance: string;
}): Promise<OpenFga> {
  const env = {
    ...process.env,
    OPENFGA_DATASTORE: options.datastore,
    OPENFGA_DATASTORE_URI: options.uri ?? '',
    OPENFGA_CACHES: options.caches,
    OPENFGA_INSTANCE: options.instance,
    OPENFGA_HTTP_PORT: String(await freePort()),
    OPENFGA_GRPC_PORT: String(await freePort()),
  };
  const { stdout } = await run('bash', [SCRIPT, 'start'], { cwd: ROOT, env });
  const url = /OPENFGA_URL=(\S+)/.exec(stdout)?.[1];
  if (!url) throw new Error(`openfga.sh start printed no OPENFGA_URL: ${stdout}`);
  const runDir = join(process.env.SERVERS_RUN_DIR ?? '/tmp/rebac-test-servers', options.instance);
  const pid = Number(readFileSync(join(runDir, 'openfga.pid'), 'utf8').trim());
  return {
    url,
    pid,
    memory: () => memoryOf(pid),
    stop: async () => {
      await run('bash', [SCRIPT, 'stop'], { cwd: ROOT, env });
    },
  };
}

async function post(url: string, body: unknown): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${url} → ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

export interface LoadedStore {
  storeId: string;
  modelId: string;
  tuples: number;
  loadMs: number;
}

/** A store with the model and the data set's tuples (writes of 100 tuples, OpenFGA's default limit, 4 in flight). */
export async function loadOpenFga(fga: OpenFga, data: Dataset): Promise<LoadedStore> {
  const store = await post(`${fga.url}/stores`, { name: 'bench' });
  const model = await post(`${fga.url}/stores/${store.id}/authorization-models`, OPENFGA_MODEL);
  const modelId = model.authorization_model_id as string;
  const tuples = function* () {
    yield* range(data.size.documents, (d) => ({ user: `folder:f${data.parentOf(d)}`, relation: 'parent', object: `document:d${d}` }));
    for (const a of data.assignments) yield { user: `user:${a.user}`, relation: a.role, object: a.instance };
  };
  const loaded = await bulkSend(tuples(), 100, 4, (batch) =>
    post(`${fga.url}/stores/${store.id}/write`, { authorization_model_id: modelId, writes: { tuple_keys: batch } }),
  );
  return { storeId: store.id, modelId, tuples: loaded.objects, loadMs: loaded.ms };
}

export async function openfgaCheck(fga: OpenFga, store: LoadedStore, c: Check): Promise<boolean> {
  return (await post(`${fga.url}/stores/${store.storeId}/check`, openfgaCheckBody(store.modelId, c))).allowed as boolean;
}
