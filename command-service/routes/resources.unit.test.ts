import type { ResourceDoc } from '../../shared/read-models/read-models';
import { resourceSchema } from '../http/responses';
import { presentResource } from './resources';

const common = {
  id: '0b8f6a52-3c1e-4c7a-9a55-1f0e2d3c4b5a',
  organization_id: '1b8f6a52-3c1e-4c7a-9a55-1f0e2d3c4b5a',
  project_id: '2b8f6a52-3c1e-4c7a-9a55-1f0e2d3c4b5a',
  environment_id: '3b8f6a52-3c1e-4c7a-9a55-1f0e2d3c4b5a',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

describe('presentResource', () => {
  it('answers a document projected before attributes were typed as Permit’s blocks, as a rebuild would', () => {
    const old = {
      ...common,
      key: 'doc',
      name: 'Doc',
      description: '',
      urn: null,
      actions: { read: { id: '4b8f6a52-3c1e-4c7a-9a55-1f0e2d3c4b5a', key: 'read', name: 'read', description: '' } },
      attributes: { private: { type: 'bool' }, anything: 42 },
      roles: {},
      relations: {},
      action_groups: {},
    } as unknown as ResourceDoc;
    const presented = presentResource(old);
    expect(presented.attributes).toEqual({
      private: { id: expect.any(String), key: 'private', type: 'bool', description: null },
      anything: { id: expect.any(String), key: 'anything', type: 'json', description: null },
    });
    // Derived ids are stable: the same on every read.
    expect(presentResource(old).attributes.private!.id).toBe(presented.attributes.private!.id);
    expect(resourceSchema.safeParse(presented).success).toBe(true);
  });

  it('keeps internal fields and part timestamps out of the answer', () => {
    const doc: ResourceDoc = {
      ...common,
      key: 'doc',
      name: 'Doc',
      description: null,
      urn: 'urn:doc',
      actions: { read: { id: common.id, key: 'read', name: 'Read', description: null, created_at: common.created_at } },
      attributes: { size: { id: common.id, key: 'size', type: 'number', description: null, updated_at: common.updated_at } },
      roles: {},
      relations: {},
      action_groups: { all: ['read'] },
      _action_groups: {
        all: { ...common, key: 'all', name: 'All', description: null, actions: ['read'] },
      },
    };
    const presented = presentResource(doc);
    expect(presented).not.toHaveProperty('_action_groups');
    expect(resourceSchema.safeParse(presented).success).toBe(true);
  });
});
