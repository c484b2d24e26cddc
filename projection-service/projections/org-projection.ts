import type { EventOf, RecordedEvent } from '../../shared/events';
import type { ReadModels } from '../../shared/read-models/read-models';
import type { Projection } from '../../shared/read-models/projection';

/** Organisations, projects, environments and API keys. */
export function orgProjection(rm: ReadModels): Projection {
  return {
    name: 'org',
    handles: new Set([
      'OrganizationCreated',
      'ProjectCreated',
      'EnvironmentCreated',
      'ApiKeyCreated',
      'ApiKeyDeleted',
      'ApiKeySecretRotated',
    ]),
    async apply(event: RecordedEvent) {
      const at = event.metadata.timestamp;
      const { id: orgId } = { id: event.streamId.slice('org-'.length) };
      switch (event.type) {
        case 'OrganizationCreated': {
          const d = (event as unknown as EventOf<'OrganizationCreated'>).data;
          await rm.organizations.put({ id: d.id, key: d.key, name: d.name, created_at: at, updated_at: at });
          break;
        }
        case 'ProjectCreated': {
          const d = (event as unknown as EventOf<'ProjectCreated'>).data;
          await rm.projects.put({
            id: d.id,
            key: d.key,
            organization_id: orgId,
            name: d.name,
            description: d.description,
            urn_namespace: null,
            settings: {},
            active_policy_repo_id: null,
            created_at: at,
            updated_at: at,
          });
          break;
        }
        case 'EnvironmentCreated': {
          const d = (event as unknown as EventOf<'EnvironmentCreated'>).data;
          await rm.environments.put({
            id: d.id,
            key: d.key,
            organization_id: orgId,
            project_id: d.projectId,
            name: d.name,
            description: d.description,
            custom_branch_name: d.customBranchName,
            jwks: d.jwks,
            settings: d.settings,
            avp_policy_store_id: '',
            created_at: at,
            updated_at: at,
          });
          break;
        }
        case 'ApiKeyCreated': {
          const d = (event as unknown as EventOf<'ApiKeyCreated'>).data;
          const objectType = d.scope.level === 'organization' ? 'org' : d.scope.level === 'project' ? 'project' : 'env';
          await rm.apiKeys.put({
            id: d.id,
            organization_id: orgId,
            project_id: d.scope.projectId,
            environment_id: d.scope.environmentId,
            object_type: objectType,
            // Keys created before access levels existed were all admin.
            access_level: d.accessLevel ?? 'admin',
            owner_type: 'member',
            name: d.name,
            created_at: at,
            _secret_hash: d.secretHash,
          });
          break;
        }
        case 'ApiKeyDeleted': {
          await rm.apiKeys.delete((event as unknown as EventOf<'ApiKeyDeleted'>).data.id);
          break;
        }
        case 'ApiKeySecretRotated': {
          const d = (event as unknown as EventOf<'ApiKeySecretRotated'>).data;
          const key = await rm.apiKeys.get(d.id);
          if (key) await rm.apiKeys.put({ ...key, _secret_hash: d.secretHash });
          break;
        }
      }
    },
  };
}
