import { CURRENT_SCHEMA_VERSION, type EnvEvent, type NewEvent } from '../../../shared/events';
// The service's own ids (time-ordered), so the environment is one the service would have written.
import { newId } from '../../../shared/ids';

/**
 * Events of a large, valid environment, for appending straight into an
 * `env-<id>` stream (much faster than the API): a folder/document policy with
 * a derivation, a few tenants, then units of five facts events: a folder, a
 * document, the tuple making the folder its parent, a user, and the user's
 * editor role on the folder. Yields exactly `total` events, in batches.
 */
export function* syntheticEnvironment(total: number, batchSize = 10_000, tenants = 10): Generator<NewEvent[]> {
  const metadata = { actor: null, timestamp: new Date().toISOString(), schemaVersion: CURRENT_SCHEMA_VERSION };
  const action = (key: string) => ({ id: newId(), key, name: key, description: '' });
  const role = (resource: string, key: string, permissions: string[]): EnvEvent => ({
    type: 'RoleCreated',
    data: { id: newId(), key, resource, name: key, description: '', permissions, attributes: {} },
  });
  const head: EnvEvent[] = [
    {
      type: 'ResourceCreated',
      data: {
        id: newId(),
        key: 'folder',
        name: 'Folder',
        description: '',
        actions: [action('read'), action('write')],
        attributes: {},
      },
    },
    {
      type: 'ResourceCreated',
      data: {
        id: newId(),
        key: 'document',
        name: 'Document',
        description: '',
        actions: [action('read'), action('write')],
        attributes: {},
      },
    },
    role('folder', 'editor', ['read', 'write']),
    role('folder', 'viewer', ['read']),
    role('document', 'editor', ['read', 'write']),
    {
      type: 'RelationCreated',
      data: { id: newId(), key: 'parent', name: 'Parent', description: '', objectResource: 'document', subjectResource: 'folder' },
    },
    {
      type: 'ImplicitGrantAdded',
      data: { id: '', key: 'editor', resource: 'document', rule: { onResource: 'folder', role: 'editor', relation: 'parent' } },
    },
    ...Array.from({ length: tenants }, (_, t): EnvEvent => ({
      type: 'TenantCreated',
      data: { id: newId(), key: `t${t}`, name: `Tenant ${t}`, description: '', attributes: {} },
    })),
  ];
  // The implicit grant names its role by id too.
  head[6]!.data.id = head[4]!.data.id;

  let batch: NewEvent[] = [];
  let emitted = 0;
  const unit = function* (i: number): Generator<EnvEvent> {
    const tenant = `t${i % tenants}`;
    yield { type: 'ResourceInstanceCreated', data: { id: newId(), key: `f${i}`, resource: 'folder', tenant, attributes: {} } };
    yield { type: 'ResourceInstanceCreated', data: { id: newId(), key: `d${i}`, resource: 'document', tenant, attributes: {} } };
    yield {
      type: 'RelationshipTupleCreated',
      data: { id: newId(), subject: `folder:f${i}`, relation: 'parent', object: `document:d${i}`, tenant },
    };
    yield { type: 'UserCreated', data: { id: newId(), key: `u${i}`, email: null, firstName: null, lastName: null, attributes: {} } };
    yield {
      type: 'RoleAssigned',
      data: { id: newId(), user: `u${i}`, role: 'editor', resource: 'folder', tenant, resourceInstance: `folder:f${i}` },
    };
  };
  const all = function* (): Generator<EnvEvent> {
    yield* head;
    for (let i = 0; ; i++) yield* unit(i);
  };
  for (const event of all()) {
    if (emitted === total) break;
    batch.push({ type: event.type, data: event.data, metadata });
    emitted++;
    if (batch.length === batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
