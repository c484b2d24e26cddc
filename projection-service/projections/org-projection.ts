import type { EventHandlers, OrgEvent } from '../../shared/events';
import { dispatch, eventTypes, handledTypes, streamCategory } from '../../shared/events';
import type { ReadModels } from '../../shared/read-models/read-models';
import type { Projection } from '../../shared/read-models/projection';

/** What an org handler writes with, for one event of organisation `organizationId`. */
interface OrgScope {
  rm: ReadModels;
  organizationId: string;
  at: string;
}

/** Organisations, projects, environments and API keys: every organisation event makes a document. */
export const orgProjectionHandlers: EventHandlers<OrgEvent, OrgScope, Promise<void>> = {
  async OrganizationCreated({ rm, at }, { data: d }) {
    await rm.organizations.put({ id: d.id, key: d.key, name: d.name, created_at: at, updated_at: at });
  },
  async ProjectCreated({ rm, organizationId, at }, { data: d }) {
    await rm.projects.put({
      id: d.id,
      key: d.key,
      organization_id: organizationId,
      name: d.name,
      description: d.description,
      urn_namespace: d.urnNamespace ?? null,
      settings: d.settings ?? {},
      active_policy_repo_id: null,
      created_at: at,
      updated_at: at,
    });
  },
  async EnvironmentCreated({ rm, organizationId, at }, { data: d }) {
    await rm.environments.put({
      id: d.id,
      key: d.key,
      organization_id: organizationId,
      project_id: d.projectId,
      name: d.name,
      description: d.description,
      custom_branch_name: d.customBranchName,
      jwks: d.jwks,
      settings: d.settings,
      avp_policy_store_id: null,
      created_at: at,
      updated_at: at,
    });
  },
  async ApiKeyCreated({ rm, organizationId, at }, { data: d }) {
    const objectType = d.scope.level === 'organization' ? 'org' : d.scope.level === 'project' ? 'project' : 'env';
    await rm.apiKeys.put({
      id: d.id,
      organization_id: organizationId,
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
  },
  async ApiKeyDeleted({ rm }, { data: d }) {
    await rm.apiKeys.delete(d.id);
  },
  async ApiKeySecretRotated({ rm }, { data: d }) {
    const key = await rm.apiKeys.get(d.id);
    if (key) await rm.apiKeys.put({ ...key, _secret_hash: d.secretHash });
  },
  async ProjectUpdated({ rm, at }, { data: { id, ...changes } }) {
    const project = await rm.projects.get(id);
    if (project) await rm.projects.put({ ...project, ...changes, updated_at: at });
  },
  async ProjectDeleted({ rm }, { data: d }) {
    await rm.projects.delete(d.id);
  },
  async EnvironmentUpdated({ rm, at }, { data: { id, customBranchName, ...changes } }) {
    const env = await rm.environments.get(id);
    if (!env) return;
    await rm.environments.put({
      ...env,
      ...changes,
      ...(customBranchName !== undefined ? { custom_branch_name: customBranchName } : {}),
      updated_at: at,
    });
  },
  async EnvironmentDeleted({ rm }, { data: d }) {
    await rm.environments.delete(d.id);
  },
};

/** Organisations, projects, environments and API keys. */
export function orgProjection(rm: ReadModels): Projection<OrgEvent> {
  return {
    name: 'org',
    version: 1,
    handles: handledTypes(eventTypes.org, orgProjectionHandlers),
    async apply(event) {
      const scope = { rm, organizationId: streamCategory(event.streamId).id, at: event.metadata.timestamp };
      await dispatch(orgProjectionHandlers, event.type, scope, event);
    },
  };
}
