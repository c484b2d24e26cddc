/**
 * Benchmark: /user-permissions for a user who holds a role on many instances from which a rule
 * leads into a sink role (docs/grants.md §8): editor on every one of FOLDERS folders, each with
 * FILES_PER_FOLDER files whose editor role derives from the folder's. Since sink roles are implied
 * when read, each page reads the files' tuples after the cursor and the user's grants on their
 * folders by id; before, the files' grants were stored rows, read as one range a page.
 *
 * Prints the load time, then the time to page through everything (limit 1000, Permit's default
 * page) and the slowest page, and the time of an uncached check of one file.
 *
 *   node -r @swc-node/register bench/user-permissions.ts
 *   UP_FOLDERS=30000 UP_FILES_PER_FOLDER=3 node -r @swc-node/register bench/user-permissions.ts
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ADMIN_KEY_FILE } from '../command-service/bootstrap';
import { startEmbedded } from '../app/embedded';
import { embeddedFeatures } from '../app/features';
import { loadConfig } from '../shared/config';
import { folderFileModel } from './lib/folder-file-model';
import { FACTS } from './lib/load-ours';

const FOLDERS = Number(process.env.UP_FOLDERS ?? 10_000);
const FILES_PER_FOLDER = Number(process.env.UP_FILES_PER_FOLDER ?? 9);
const BULK = 5_000;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rebac-bench-user-permissions-'));
  const service = await startEmbedded(
    loadConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
    pino({ level: 'silent' }),
    embeddedFeatures(),
  );
  try {
    const request = async (key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const r = await fetch(`${service.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      if (r.status !== 200) throw new Error(`${method} ${path} answered ${r.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text);
    };
    const adminKey = readFileSync(join(dataDir, ADMIN_KEY_FILE), 'utf8').trim();
    const key = (
      await request(adminKey, 'POST', '/v2/api-key', {
        project_id: 'default',
        environment_id: 'production',
        object_type: 'env',
        name: 'bench',
      })
    ).secret as string;
    const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
      request(key, method, path, body, headers);
    console.log(
      `user-permissions benchmark: editor on ${FOLDERS.toLocaleString('en-US')} folders of ${FILES_PER_FOLDER} files; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${cpus().length} CPUs`,
    );
    await folderFileModel(call);

    let started = performance.now();
    const folders = Array.from({ length: FOLDERS }, (_, i) => `d${i}`);
    const files = folders.flatMap((folder) => Array.from({ length: FILES_PER_FOLDER }, (_, i) => ({ folder, file: `${folder}f${i}` })));
    for (let i = 0; i < folders.length; i += BULK)
      await call('PUT', `${FACTS}/bulk/resource_instances`, {
        operations: folders.slice(i, i + BULK).map((k) => ({ key: k, resource: 'folder', tenant: 'acme' })),
      });
    for (let i = 0; i < files.length; i += BULK) {
      const chunk = files.slice(i, i + BULK);
      await call('PUT', `${FACTS}/bulk/resource_instances`, {
        operations: chunk.map(({ file }) => ({ key: file, resource: 'file', tenant: 'acme' })),
      });
      await call('POST', `${FACTS}/relationship_tuples/bulk`, {
        operations: chunk.map(({ folder, file }) => ({ subject: `folder:${folder}`, relation: 'parent', object: `file:${file}` })),
      });
    }
    for (let i = 0; i < folders.length; i += BULK)
      await call(
        'POST',
        `${FACTS}/role_assignments/bulk`,
        folders.slice(i, i + BULK).map((k) => ({ user: 'alice', role: 'editor', resource_instance: `folder:${k}`, tenant: 'acme' })),
      );
    console.log(
      `loaded ${(folders.length + 2 * files.length + folders.length).toLocaleString('en-US')} objects in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    for (let round = 1; round <= 3; round++) {
      started = performance.now();
      let cursor: string | null = null;
      let pages = 0;
      let entries = 0;
      let slowest = 0;
      do {
        const pageStarted = performance.now();
        const page = await call('POST', '/user-permissions', { user: 'alice', limit: 1000, ...(cursor ? { cursor } : {}) });
        slowest = Math.max(slowest, performance.now() - pageStarted);
        entries += Object.keys(page.result.permissions).length;
        cursor = page.next_cursor;
        pages++;
      } while (cursor);
      const expected = folders.length + files.length;
      if (entries !== expected) throw new Error(`listed ${entries} instances, expected ${expected}`);
      console.log(
        `round ${round}: ${entries.toLocaleString('en-US')} instances in ${pages} pages, ${((performance.now() - started) / 1000).toFixed(2)} s; slowest page ${slowest.toFixed(0)} ms`,
      );
    }
    const checks: number[] = [];
    for (let i = 0; i < 200; i++) {
      const file = files[(i * 7919) % files.length]!.file;
      const checkStarted = performance.now();
      const r = await call(
        'POST',
        '/allowed',
        { user: 'alice', action: 'write', resource: `file:${file}` },
        { 'cache-control': 'no-cache' },
      );
      checks.push(performance.now() - checkStarted);
      if (r.allow !== true) throw new Error(`alice may not write file:${file}`);
    }
    checks.sort((a, b) => a - b);
    console.log(`uncached /allowed on a file, one at a time: p50 ${checks[100]!.toFixed(2)} ms, p99 ${checks[197]!.toFixed(2)} ms`);
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
