import type { EnvEvent, OrgEvent, RecordedEvent } from '../events';
import { applyToProjections, type Projection } from './projection';

const recorded = (type: string): RecordedEvent => ({
  type,
  data: {},
  streamId: 'env-e1',
  streamVersion: 0,
  position: 1,
  metadata: { actor: null, timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 },
});

describe('applying an event to the projections', () => {
  const applied: string[] = [];
  const env: Projection<EnvEvent> = {
    name: 'env',
    version: 1,
    handles: new Set(['RoleAssigned']),
    apply: async (event) => void applied.push(`env:${event.type}`),
  };
  const org: Projection<OrgEvent> = {
    name: 'org',
    version: 1,
    handles: new Set(['ProjectCreated']),
    apply: async (event) => void applied.push(`org:${event.type}`),
  };

  it('passes each event only to the projections that handle its type, and unknown types to none', async () => {
    for (const type of ['RoleAssigned', 'RoleUnassigned', 'ProjectCreated', 'NotInTheCatalogue'])
      await applyToProjections([env, org], recorded(type));
    expect(applied).toEqual(['env:RoleAssigned', 'org:ProjectCreated']);
  });
});
