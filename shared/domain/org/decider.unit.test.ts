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

describe('org decider: projects and environments', () => {
  const env = (id: string, projectId: string, key: string): OrgEvent => ({
    type: 'EnvironmentCreated',
    data: { id, projectId, key, name: key, description: '', customBranchName: '', jwks: {}, settings: {} },
  });
  const key = (id: string, level: 'project' | 'environment', projectId: string, environmentId: string | null): OrgEvent => ({
    type: 'ApiKeyCreated',
    data: { id, name: id, secretHash: `h-${id}`, scope: { level, projectId, environmentId }, accessLevel: 'admin' },
  });
  const world: OrgEvent[] = [
    ...created,
    env('e1', 'proj', 'production'),
    env('e2', 'proj', 'development'),
    { type: 'ProjectCreated', data: { id: 'other', key: 'other', name: 'Other', description: '' } },
    env('e3', 'other', 'production'),
    key('k-e1', 'environment', 'proj', 'e1'),
    key('k-e3', 'environment', 'other', 'e3'),
    key('k-p', 'project', 'proj', null),
    legacyKey,
  ];

  it("creates a project with the environments it is given (Permit's production and development)", () => {
    const fields = { description: '', customBranchName: '', jwks: {}, settings: {} };
    spec
      .given(created)
      .when({
        type: 'CreateProject',
        id: 'p2',
        key: 'p2',
        name: 'P2',
        description: '',
        environments: [
          { id: 'a', key: 'production', name: 'Production', ...fields },
          { id: 'b', key: 'development', name: 'Development', ...fields },
        ],
      })
      .then([
        { type: 'ProjectCreated', data: { id: 'p2', key: 'p2', name: 'P2', description: '' } },
        { type: 'EnvironmentCreated', data: { id: 'a', projectId: 'p2', key: 'production', name: 'Production', ...fields } },
        { type: 'EnvironmentCreated', data: { id: 'b', projectId: 'p2', key: 'development', name: 'Development', ...fields } },
      ]);
  });

  it('deleting an environment deletes the keys scoped to it first, and nothing else', () => {
    spec
      .given(world)
      .when({ type: 'DeleteEnvironment', project: 'default', environment: 'production' })
      .then([
        { type: 'ApiKeyDeleted', data: { id: 'k-e1' } },
        { type: 'EnvironmentDeleted', data: { id: 'e1' } },
      ]);
  });

  it("deleting a project deletes its environments with their keys, then its own keys, then it; not another project's", () => {
    spec
      .given(world)
      .when({ type: 'DeleteProject', project: 'default' })
      .then([
        { type: 'ApiKeyDeleted', data: { id: 'k-e1' } },
        { type: 'EnvironmentDeleted', data: { id: 'e1' } },
        { type: 'EnvironmentDeleted', data: { id: 'e2' } },
        { type: 'ApiKeyDeleted', data: { id: 'k-p' } },
        { type: 'ProjectDeleted', data: { id: 'proj' } },
      ]);
  });

  it('after a deletion the keys are free again and the deleted objects are not found', () => {
    const gone: OrgEvent[] = [
      ...world,
      { type: 'ApiKeyDeleted', data: { id: 'k-e1' } },
      { type: 'EnvironmentDeleted', data: { id: 'e1' } },
    ];
    spec
      .given(gone)
      .when({ type: 'DeleteEnvironment', project: 'default', environment: 'production' })
      .thenThrows(NotFoundError, /Environment 'production' not found/);
    spec
      .given(gone)
      .when({ type: 'UpdateEnvironment', project: 'default', environment: 'e1', changes: { name: 'x' } })
      .thenThrows(NotFoundError);
    const fields = { name: 'P', description: '', customBranchName: '', jwks: {}, settings: {} };
    spec
      .given(gone)
      .when({ type: 'CreateEnvironment', project: 'default', environment: { id: 'e9', key: 'production', ...fields } })
      .then([{ type: 'EnvironmentCreated', data: { id: 'e9', projectId: 'proj', key: 'production', ...fields } }]);
  });

  it('an update names only the fields given', () => {
    spec
      .given(world)
      .when({ type: 'UpdateProject', project: 'other', name: 'Renamed' })
      .then([{ type: 'ProjectUpdated', data: { id: 'other', name: 'Renamed' } }]);
    spec
      .given(world)
      .when({
        type: 'UpdateEnvironment',
        project: 'other',
        environment: 'production',
        changes: { customBranchName: 'main', name: undefined },
      })
      .then([{ type: 'EnvironmentUpdated', data: { id: 'e3', customBranchName: 'main' } }]);
  });
});
