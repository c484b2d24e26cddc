import { FACTS, SCHEMA } from './load-ours';

/**
 * The fan-out's model, through the schema API: folder and file with read/write, editor on both,
 * a file's editor implied by its parent folder's (`parent`: file → folder), and the tenant
 * `acme`. `send` makes one request and throws when it fails.
 */
export async function folderFileModel(send: (method: string, path: string, body: unknown) => Promise<unknown>): Promise<void> {
  await send('POST', `${SCHEMA}/resources`, { key: 'folder', name: 'Folder', actions: { read: {}, write: {} } });
  await send('POST', `${SCHEMA}/resources`, { key: 'file', name: 'File', actions: { read: {}, write: {} } });
  await send('POST', `${SCHEMA}/resources/folder/roles`, { key: 'editor', name: 'Editor', permissions: ['read', 'write'] });
  await send('POST', `${SCHEMA}/resources/file/roles`, { key: 'editor', name: 'Editor', permissions: ['read', 'write'] });
  await send('POST', `${SCHEMA}/resources/file/relations`, { key: 'parent', name: 'Parent', subject_resource: 'folder' });
  await send('POST', `${SCHEMA}/resources/file/roles/editor/implicit_grants`, {
    role: 'editor',
    on_resource: 'folder',
    linked_by_relation: 'parent',
  });
  await send('POST', `${FACTS}/tenants`, { key: 'acme', name: 'Acme' });
}
