import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { CommandPipeline } from '../../cqrs/command-pipeline';
import { FileSnapshotStore } from '../../cqrs/snapshot-store';
import { DuplicateEntityError } from '../../errors';
import type { EventMetadata } from '../../events';
import { SqliteEventStore } from '../../eventstore/sqlite-event-store';
import type { EnvCommand } from './commands';
import { envDecider } from './decider';

const meta: EventMetadata = { actor: null, timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };
const silent = pino({ level: 'silent' });
const action = (key: string) => ({ id: `a-${key}`, key, name: key, description: '' });
const setup: EnvCommand[] = [
  {
    type: 'CreateResource',
    id: 'r-folder',
    key: 'folder',
    name: 'Folder',
    description: '',
    actions: [action('read')],
    urn: null,
    attributes: [],
  },
  {
    type: 'CreateResource',
    id: 'r-file',
    key: 'file',
    name: 'File',
    description: '',
    actions: [action('read')],
    urn: null,
    attributes: [],
  },
  {
    type: 'CreateRole',
    id: 'ro-viewer',
    resource: 'file',
    key: 'viewer',
    name: 'Viewer',
    description: '',
    permissions: ['read'],
    attributes: {},
  },
  {
    type: 'CreateRelation',
    id: 'rel-parent',
    objectResource: 'file',
    key: 'parent',
    name: 'Parent',
    description: '',
    subjectResource: 'folder',
  },
  { type: 'CreateTenant', id: 't-acme', key: 'acme', name: 'Acme', description: '', attributes: {} },
  {
    type: 'Bulk',
    commands: [
      { type: 'CreateInstance', id: 'i-f1', key: 'f1', resource: 'folder', tenant: 'acme', attributes: {} },
      { type: 'CreateInstance', id: 'i-d1', key: 'd1', resource: 'file', tenant: 'acme', attributes: {} },
      { type: 'CreateTuple', id: 'tu-1', subject: 'folder:f1', relation: 'parent', object: 'file:d1', tenant: null },
      { type: 'AssignRole', id: 'as-1', newUserId: 'u-bob', user: 'bob', role: 'viewer', tenant: null, resourceInstance: 'file:d1' },
    ],
  },
];

describe('environment state from a snapshot (compact tuples and assignments)', () => {
  it('a restarted process decides from the snapshot as the writer did', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'env-snapshot-'));
    const log = new SqliteEventStore({ path: join(dir, 'events.sqlite') });
    const snapshots = new FileSnapshotStore(join(dir, 'snapshots'));
    try {
      const writer = new CommandPipeline(log, envDecider, silent, undefined, { store: snapshots, every: 1000 });
      for (const command of setup) await writer.execute('env-1', command, meta);
      await writer.flushSnapshots();

      const folds: string[] = [];
      const counting = {
        ...envDecider,
        evolve: (s: Parameters<typeof envDecider.evolve>[0], e: Parameters<typeof envDecider.evolve>[1]) => (
          folds.push(e.type),
          envDecider.evolve(s, e)
        ),
      };
      const restarted = new CommandPipeline(log, counting, silent, undefined, { store: snapshots, every: 1000 });
      const duplicate = restarted.execute(
        'env-1',
        { type: 'CreateTuple', id: 'tu-2', subject: 'folder:f1', relation: 'parent', object: 'file:d1', tenant: null },
        meta,
      );
      await expect(duplicate).rejects.toBeInstanceOf(DuplicateEntityError);
      expect(folds).toEqual([]); // nothing folded from the log: the state came from the snapshot

      const deleted = await restarted.execute('env-1', { type: 'DeleteInstance', instance: 'file:d1' }, meta);
      expect(deleted.events).toEqual([
        {
          type: 'RelationshipTupleDeleted',
          data: { id: 'tu-1', subject: 'folder:f1', relation: 'parent', object: 'file:d1', tenant: 'acme' },
        },
        {
          type: 'RoleUnassigned',
          data: { id: 'as-1', user: 'bob', role: 'viewer', resource: 'file', tenant: 'acme', resourceInstance: 'file:d1' },
        },
        { type: 'ResourceInstanceDeleted', data: { id: 'i-d1', key: 'd1', resource: 'file', tenant: 'acme' } },
      ]);
    } finally {
      await log.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
