import { NotFoundError } from '../../errors';
import type { OrgEvent } from '../../events';
import { deciderSpecification } from '../../testing/decider-specification';
import { orgDecider } from './decider';

const spec = deciderSpecification(orgDecider);
const orgScope = { level: 'organization' as const, projectId: null, environmentId: null };
const created: OrgEvent[] = [
  { type: 'OrganizationCreated', data: { id: 'org', key: 'default', name: 'Org' } },
  { type: 'ProjectCreated', data: { id: 'proj', key: 'default', name: 'Project', description: '' } },
];
/** As written before access levels existed: no `accessLevel`. */
const legacyKey: OrgEvent = { type: 'ApiKeyCreated', data: { id: 'k-old', name: 'admin', secretHash: 'h0', scope: orgScope } };

describe('org decider: API keys', () => {
  it('stores the access level in the event', () => {
    spec
      .given(created)
      .when({ type: 'CreateApiKey', id: 'k1', name: 'ci', secretHash: 'h1', scope: orgScope, accessLevel: 'read' })
      .then([{ type: 'ApiKeyCreated', data: { id: 'k1', name: 'ci', secretHash: 'h1', scope: orgScope, accessLevel: 'read' } }]);
  });

  it('bootstraps an admin key', () => {
    spec
      .given([])
      .when({
        type: 'BootstrapOrganization',
        organization: { id: 'org', key: 'default', name: 'Org' },
        project: { id: 'proj', key: 'default', name: 'Project' },
        environment: { id: 'env', key: 'production', name: 'P', description: '', customBranchName: '', jwks: {}, settings: {} },
        apiKey: { id: 'k0', secretHash: 'h0' },
      })
      .thenContains([
        { type: 'ApiKeyCreated', data: { id: 'k0', name: 'admin', secretHash: 'h0', scope: orgScope, accessLevel: 'admin' } },
      ]);
  });

  it('deletes a key created before access levels existed', () => {
    spec
      .given([...created, legacyKey])
      .when({ type: 'DeleteApiKey', id: 'k-old' })
      .then([{ type: 'ApiKeyDeleted', data: { id: 'k-old' } }]);
  });

  it('refuses to delete or rotate an unknown or deleted key', () => {
    spec
      .given(created)
      .when({ type: 'DeleteApiKey', id: 'nope' })
      .thenThrows(NotFoundError, /API key 'nope' not found/);
    const deleted: OrgEvent = { type: 'ApiKeyDeleted', data: { id: 'k-old' } };
    spec
      .given([...created, legacyKey, deleted])
      .when({ type: 'DeleteApiKey', id: 'k-old' })
      .thenThrows(NotFoundError);
    spec
      .given([...created, legacyKey, deleted])
      .when({ type: 'RotateApiKeySecret', id: 'k-old', secretHash: 'h2' })
      .thenThrows(NotFoundError);
  });

  it('rotates a secret, again and again', () => {
    spec
      .given([...created, legacyKey, { type: 'ApiKeySecretRotated', data: { id: 'k-old', secretHash: 'h1' } }])
      .when({ type: 'RotateApiKeySecret', id: 'k-old', secretHash: 'h2' })
      .then([{ type: 'ApiKeySecretRotated', data: { id: 'k-old', secretHash: 'h2' } }]);
  });
});
