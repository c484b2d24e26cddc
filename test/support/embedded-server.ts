import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ADMIN_KEY_FILE } from '../../command-service/bootstrap';
import { startEmbedded, type EmbeddedService } from '../../app/embedded';
import type { Feature } from '../../app/feature';
import { embeddedFeatures } from '../../app/features';
import type { Clock } from '../../shared/clock';
import { loadConfig, type Config } from '../../shared/config';

export interface TestServer {
  url: string;
  adminKey: string;
  dataDir: string;
  service: EmbeddedService;
  /** A client bound to the admin (organisation) key. */
  api: ApiClient;
  close(options?: { keepData?: boolean }): Promise<void>;
}

/**
 * Starts the embedded service on a fresh temporary DATA_DIR (or a given one, to
 * test restarts) on a free port, with every embedded feature.
 */
export async function startTestServer(
  options: { dataDir?: string; env?: Record<string, string>; features?: Feature[]; clock?: Clock } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'rebac-test-'));
  // One HTTP process unless a test asks for check workers (test/checks/check-workers.int.test.ts);
  // the projections where PROJECTION_THREAD says (default `auto`: on their thread with two cores or more;
  // `PROJECTION_THREAD=false npm test` runs them all on the main thread).
  const config: Config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    HTTP_WORKERS: '1',
    ...(process.env.PROJECTION_THREAD ? { PROJECTION_THREAD: process.env.PROJECTION_THREAD } : {}),
    ...options.env,
  });
  const service = await startEmbedded(
    config,
    pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    options.features ?? embeddedFeatures(),
    options.clock,
  );
  const adminKey = options.env?.ADMIN_API_KEY ?? readFileSync(join(dataDir, ADMIN_KEY_FILE), 'utf8').trim();
  return {
    url: service.url,
    adminKey,
    dataDir,
    service,
    api: new ApiClient(service.url, adminKey),
    async close({ keepData = false } = {}) {
      await service.close();
      if (!keepData && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A small fetch-based client for tests: JSON in, JSON out, status kept. */
export class ApiClient {
  constructor(
    readonly url: string,
    readonly key: string,
  ) {}

  withKey(key: string): ApiClient {
    return new ApiClient(this.url, key);
  }

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as T) : (undefined as T), headers: response.headers };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }
  post<T = any>(path: string, body: unknown) {
    return this.request<T>('POST', path, body);
  }
  patch<T = any>(path: string, body: unknown) {
    return this.request<T>('PATCH', path, body);
  }
  delete<T = any>(path: string, body?: unknown) {
    return this.request<T>('DELETE', path, body);
  }

  /** Creates an environment-scoped key for `default/<env>` and returns a client bound to it. */
  async environmentClient(project = 'default', environment = 'production'): Promise<ApiClient> {
    const created = await this.post('/v2/api-key', { project_id: project, environment_id: environment, object_type: 'env', name: 'test' });
    if (created.status !== 200) throw new Error(`could not create an environment key: ${created.status} ${JSON.stringify(created.body)}`);
    return this.withKey(created.body.secret as string);
  }
}

/** Paths of the default environment. */
export const SCHEMA = '/v2/schema/default/production';
export const FACTS = '/v2/facts/default/production';

/**
 * The seed's folder/file example: resource types with actions, roles, the
 * `parent` relation (folder is the parent of file), a tenant, instances, an
 * assignment and a tuple. Returns what it created. Fails the test on any non-200.
 */
export async function loadFolderFileExample(api: ApiClient, schema = SCHEMA, facts = FACTS): Promise<void> {
  const ok = async (response: Promise<ApiResponse>) => {
    const r = await response;
    if (r.status !== 200) throw new Error(`expected 200, got ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  await ok(api.post(`${schema}/resources`, { key: 'folder', name: 'Folder', actions: { read: {}, write: {}, share: {} } }));
  await ok(api.post(`${schema}/resources`, { key: 'file', name: 'File', actions: { read: {}, write: {} } }));
  await ok(api.post(`${schema}/resources/folder/roles`, { key: 'editor', name: 'Editor', permissions: ['read', 'write'] }));
  await ok(api.post(`${schema}/resources/folder/roles`, { key: 'viewer', name: 'Viewer', permissions: ['read'] }));
  await ok(api.post(`${schema}/resources/file/roles`, { key: 'editor', name: 'Editor', permissions: ['read', 'write'] }));
  await ok(api.post(`${schema}/resources/file/roles`, { key: 'viewer', name: 'Viewer', permissions: ['read'] }));
  await ok(api.post(`${schema}/resources/file/relations`, { key: 'parent', name: 'Parent', subject_resource: 'folder' }));
  await ok(
    api.patch(`${schema}/resources/file/roles/editor`, {
      granted_to: { users_with_role: [{ role: 'editor', on_resource: 'folder', linked_by_relation: 'parent' }] },
    }),
  );
  await ok(
    api.post(`${schema}/resources/file/roles/viewer/implicit_grants`, {
      role: 'viewer',
      on_resource: 'folder',
      linked_by_relation: 'parent',
    }),
  );
  await ok(api.post(`${facts}/tenants`, { key: 'acme', name: 'Acme' }));
  await ok(api.post(`${facts}/resource_instances`, { key: 'docs', resource: 'folder', tenant: 'acme' }));
  await ok(api.post(`${facts}/resource_instances`, { key: 'readme', resource: 'file', tenant: 'acme' }));
  await ok(api.post(`${facts}/role_assignments`, { user: 'alice', role: 'editor', resource_instance: 'folder:docs' }));
  await ok(api.post(`${facts}/relationship_tuples`, { subject: 'folder:docs', relation: 'parent', object: 'file:readme' }));
}
