import { TENANT, type Dataset } from './dataset';
import type { HttpClient } from './http';

export const SCHEMA = '/v2/schema/default/production';
export const FACTS = '/v2/facts/default/production';

/**
 * The model through the schema API: folder and document with read/write,
 * editor (read, write) and viewer (read) on both, `parent` (document → folder),
 * and document editor/viewer derived from the same role on the parent folder.
 */
export async function loadSchema(api: HttpClient): Promise<void> {
  await api.ok('POST', `${SCHEMA}/resources`, { key: 'folder', name: 'Folder', actions: { read: {}, write: {} } });
  await api.ok('POST', `${SCHEMA}/resources`, { key: 'document', name: 'Document', actions: { read: {}, write: {} } });
  for (const resource of ['folder', 'document']) {
    await api.ok('POST', `${SCHEMA}/resources/${resource}/roles`, { key: 'editor', name: 'Editor', permissions: ['read', 'write'] });
    await api.ok('POST', `${SCHEMA}/resources/${resource}/roles`, { key: 'viewer', name: 'Viewer', permissions: ['read'] });
  }
  await api.ok('POST', `${SCHEMA}/resources/document/relations`, { key: 'parent', name: 'Parent', subject_resource: 'folder' });
  await api.ok('PATCH', `${SCHEMA}/resources/document/roles/editor`, {
    granted_to: { users_with_role: [{ role: 'editor', on_resource: 'folder', linked_by_relation: 'parent' }] },
  });
  await api.ok('POST', `${SCHEMA}/resources/document/roles/viewer/implicit_grants`, {
    role: 'viewer',
    on_resource: 'folder',
    linked_by_relation: 'parent',
  });
  await api.ok('POST', `${FACTS}/tenants`, { key: TENANT, name: 'Bench' });
}

export interface BulkLoadTiming {
  kind: 'instances' | 'tuples' | 'assignments';
  objects: number;
  ms: number;
}

/** Sends `items` in chunks of `chunk` through one bulk endpoint, `concurrency` requests in flight; returns the time taken. */
export async function bulkSend<T>(
  items: Iterable<T>,
  chunk: number,
  concurrency: number,
  send: (batch: T[]) => Promise<unknown>,
): Promise<{ objects: number; ms: number }> {
  const started = performance.now();
  const inFlight = new Set<Promise<unknown>>();
  let batch: T[] = [];
  let objects = 0;
  const flush = async () => {
    const p = send(batch).finally(() => inFlight.delete(p));
    inFlight.add(p);
    objects += batch.length;
    batch = [];
    if (inFlight.size >= concurrency) await Promise.race(inFlight);
  };
  for (const item of items) {
    batch.push(item);
    if (batch.length === chunk) await flush();
  }
  if (batch.length > 0) await flush();
  await Promise.all(inFlight);
  return { objects, ms: performance.now() - started };
}

export function* range<T>(n: number, f: (i: number) => T): Generator<T> {
  for (let i = 0; i < n; i++) yield f(i);
}

export const instancesPut = (api: HttpClient) => (operations: unknown[]) =>
  api.ok('PUT', `${FACTS}/bulk/resource_instances`, { operations });
export const tuplesPost = (api: HttpClient) => (operations: unknown[]) =>
  api.ok('POST', `${FACTS}/relationship_tuples/bulk`, { operations });
export const assignmentsPost = (api: HttpClient) => (assignments: unknown[]) =>
  api.ok('POST', `${FACTS}/role_assignments/bulk`, assignments);

/** The data set's facts through the bulk endpoints: instances, then the parent tuples, then the assignments. */
export async function loadFacts(
  api: HttpClient,
  data: Dataset,
  options: { chunk: number; concurrency: number },
): Promise<BulkLoadTiming[]> {
  const { chunk, concurrency } = options;
  const { folders, documents } = data.size;
  const instances = await bulkSend(
    (function* () {
      yield* range(folders, (f) => ({ key: `f${f}`, resource: 'folder', tenant: TENANT }));
      yield* range(documents, (d) => ({ key: `d${d}`, resource: 'document', tenant: TENANT }));
    })(),
    chunk,
    concurrency,
    instancesPut(api),
  );
  const tuples = await bulkSend(
    range(documents, (d) => ({ subject: `folder:f${data.parentOf(d)}`, relation: 'parent', object: `document:d${d}` })),
    chunk,
    concurrency,
    tuplesPost(api),
  );
  const assignments = await bulkSend(
    data.assignments.map((a) => ({ user: a.user, role: a.role, resource_instance: a.instance })),
    chunk,
    concurrency,
    assignmentsPost(api),
  );
  return [
    { kind: 'instances', ...instances },
    { kind: 'tuples', ...tuples },
    { kind: 'assignments', ...assignments },
  ];
}
