import type { Decider } from '../../cqrs/decider';
import { DuplicateEntityError, InvalidRequestError, NotFoundError } from '../../errors';
import type { ApiKeyScope, EventHandlers, OrgEvent } from '../../events';
import { dispatch } from '../../events';
import type { ApiKeyAccessLevel } from '../../events/org-events';
import { canonicalId } from '../../ids';

/** The organisation stream: the organisation, its projects, environments and API keys. */

export interface OrgState {
  created: boolean;
  /** project key → id, and id → key */
  projects: Map<string, string>;
  projectIds: Map<string, string>;
  /** `${projectId}#${envKey}` → env id; env id → project id */
  environments: Map<string, string>;
  environmentProjects: Map<string, string>;
  /** The keys that exist (created, not deleted), by id, with their scope (for the cascades of deletions). */
  apiKeys: Map<string, ApiKeyScope>;
}

export interface NewEnvironment {
  id: string;
  key: string;
  name: string;
  description: string | null;
  customBranchName: string | null;
  jwks: Record<string, unknown>;
  settings: Record<string, unknown>;
}

export type OrgCommand =
  | {
      type: 'BootstrapOrganization';
      organization: { id: string; key: string; name: string };
      project: { id: string; key: string; name: string };
      environment: NewEnvironment;
      apiKey: { id: string; secretHash: string };
    }
  | {
      type: 'CreateProject';
      id: string;
      key: string;
      name: string;
      description: string | null;
      urnNamespace?: string;
      settings?: Record<string, unknown>;
      /** Made with the project, as Permit does (its `production` and `development`). */
      environments: NewEnvironment[];
    }
  | { type: 'CreateEnvironment'; project: string; environment: NewEnvironment; copiedFromTaskId?: string }
  | { type: 'CreateApiKey'; id: string; name: string; secretHash: string; scope: ApiKeyScope; accessLevel: ApiKeyAccessLevel }
  | { type: 'UpdateProject'; project: string; name?: string; description?: string; settings?: Record<string, unknown> }
  | { type: 'DeleteProject'; project: string }
  | {
      type: 'UpdateEnvironment';
      project: string;
      environment: string;
      /** Absent fields are unchanged (a null sent for one is absent: null-as-absent.ts). */
      changes: Partial<Pick<NewEnvironment, 'name' | 'jwks' | 'settings'> & { description: string; customBranchName: string }>;
    }
  | { type: 'DeleteEnvironment'; project: string; environment: string }
  | { type: 'DeleteApiKey'; id: string }
  | { type: 'RotateApiKeySecret'; id: string; secretHash: string };

export function findProjectId(state: OrgState, ref: string): string {
  const id = state.projects.get(ref) ?? (state.projectIds.has(canonicalId(ref)) ? canonicalId(ref) : undefined);
  if (!id) throw new NotFoundError(`Project '${ref}' not found`, { project: ref });
  return id;
}

export function findEnvironmentId(state: OrgState, projectId: string, ref: string): string {
  const id =
    state.environments.get(`${projectId}#${ref}`) ??
    (state.environmentProjects.get(canonicalId(ref)) === projectId ? canonicalId(ref) : undefined);
  if (!id)
    throw new NotFoundError(`Environment '${ref}' not found in project '${state.projectIds.get(projectId) ?? projectId}'`, {
      environment: ref,
    });
  return id;
}

function environmentCreated(state: OrgState, projectId: string, env: NewEnvironment, copiedFromTaskId?: string): OrgEvent {
  if (state.environments.has(`${projectId}#${env.key}`)) {
    throw new DuplicateEntityError(`Environment '${env.key}' already exists in project '${state.projectIds.get(projectId)}'`);
  }
  return { type: 'EnvironmentCreated', data: { ...env, projectId, ...(copiedFromTaskId ? { copiedFromTaskId } : {}) } };
}

/** Explicit cascade: the keys scoped to the environment are deleted (refused by every process at once), then it. */
function environmentDeletion(state: OrgState, environmentId: string): OrgEvent[] {
  const keys = [...state.apiKeys].filter(([, scope]) => scope.environmentId === environmentId);
  return [
    ...keys.map(([id]): OrgEvent => ({ type: 'ApiKeyDeleted', data: { id } })),
    { type: 'EnvironmentDeleted', data: { id: environmentId } },
  ];
}

/** Explicit cascade: each environment as above, then the project's own keys, then the project. */
function projectDeletion(state: OrgState, projectId: string): OrgEvent[] {
  const environments = [...state.environmentProjects].filter(([, project]) => project === projectId).map(([id]) => id);
  const projectKeys = [...state.apiKeys].filter(([, scope]) => scope.level === 'project' && scope.projectId === projectId);
  return [
    ...environments.flatMap((id) => environmentDeletion(state, id)),
    ...projectKeys.map(([id]): OrgEvent => ({ type: 'ApiKeyDeleted', data: { id } })),
    { type: 'ProjectDeleted', data: { id: projectId } },
  ];
}

/** The fields given, without the undefined ones (an event names only what changed). */
function defined<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}

const apiKeyNotFound = (id: string) => new NotFoundError(`API key '${id}' not found`, { api_key_id: id });

function decide(command: OrgCommand, state: OrgState): OrgEvent[] {
  switch (command.type) {
    case 'BootstrapOrganization': {
      if (state.created) throw new DuplicateEntityError('The organization already exists');
      const { organization, project, environment, apiKey } = command;
      return [
        { type: 'OrganizationCreated', data: organization },
        { type: 'ProjectCreated', data: { ...project, description: '' } },
        { type: 'EnvironmentCreated', data: { ...environment, projectId: project.id } },
        {
          type: 'ApiKeyCreated',
          data: {
            id: apiKey.id,
            name: 'admin',
            secretHash: apiKey.secretHash,
            scope: { level: 'organization', projectId: null, environmentId: null },
            accessLevel: 'admin',
          },
        },
      ];
    }
    case 'CreateProject': {
      if (state.projects.has(command.key)) throw new DuplicateEntityError(`Project '${command.key}' already exists`);
      const { id, key, name, description, urnNamespace, settings } = command;
      return [
        { type: 'ProjectCreated', data: { id, key, name, description, ...defined({ urnNamespace, settings }) } },
        ...command.environments.map((env): OrgEvent => ({ type: 'EnvironmentCreated', data: { ...env, projectId: id } })),
      ];
    }
    case 'CreateEnvironment':
      return [environmentCreated(state, findProjectId(state, command.project), command.environment, command.copiedFromTaskId)];
    case 'CreateApiKey': {
      const { scope } = command;
      if (scope.level !== 'organization' && scope.projectId === null)
        throw new InvalidRequestError('A project or environment key needs a project');
      if (scope.projectId !== null && !state.projectIds.has(scope.projectId))
        throw new NotFoundError(`Project '${scope.projectId}' not found`);
      if (
        scope.level === 'environment' &&
        (scope.environmentId === null || state.environmentProjects.get(scope.environmentId) !== scope.projectId)
      ) {
        throw new NotFoundError(`Environment '${scope.environmentId}' not found in project '${scope.projectId}'`);
      }
      const { id, name, secretHash, accessLevel } = command;
      return [{ type: 'ApiKeyCreated', data: { id, name, secretHash, scope, accessLevel } }];
    }
    case 'UpdateProject': {
      const id = findProjectId(state, command.project);
      const { name, description, settings } = command;
      return [{ type: 'ProjectUpdated', data: { id, ...defined({ name, description, settings }) } }];
    }
    case 'DeleteProject':
      return projectDeletion(state, findProjectId(state, command.project));
    case 'UpdateEnvironment': {
      const id = findEnvironmentId(state, findProjectId(state, command.project), command.environment);
      return [{ type: 'EnvironmentUpdated', data: { id, ...defined(command.changes) } }];
    }
    case 'DeleteEnvironment':
      return environmentDeletion(state, findEnvironmentId(state, findProjectId(state, command.project), command.environment));
    case 'DeleteApiKey':
      if (!state.apiKeys.has(command.id)) throw apiKeyNotFound(command.id);
      return [{ type: 'ApiKeyDeleted', data: { id: command.id } }];
    case 'RotateApiKeySecret':
      if (!state.apiKeys.has(command.id)) throw apiKeyNotFound(command.id);
      return [{ type: 'ApiKeySecretRotated', data: { id: command.id, secretHash: command.secretHash } }];
  }
}

/** What each organisation event changes in the state (in place). */
export const orgFold: EventHandlers<OrgEvent, OrgState> = {
  OrganizationCreated(state) {
    state.created = true;
  },
  ProjectCreated(state, { data: d }) {
    state.projects.set(d.key, d.id);
    state.projectIds.set(d.id, d.key);
  },
  EnvironmentCreated(state, { data: d }) {
    state.environments.set(`${d.projectId}#${d.key}`, d.id);
    state.environmentProjects.set(d.id, d.projectId);
  },
  ApiKeyCreated(state, { data: d }) {
    state.apiKeys.set(d.id, d.scope);
  },
  ApiKeyDeleted(state, { data: d }) {
    state.apiKeys.delete(d.id);
  },
  // The state knows which keys exist, not their secrets.
  ApiKeySecretRotated: 'ignored',
  // Keys, names and ids do not change: nothing the decisions read.
  ProjectUpdated: 'ignored',
  EnvironmentUpdated: 'ignored',
  ProjectDeleted(state, { data: d }) {
    const key = state.projectIds.get(d.id);
    if (key !== undefined) state.projects.delete(key);
    state.projectIds.delete(d.id);
  },
  EnvironmentDeleted(state, { data: d }) {
    const projectId = state.environmentProjects.get(d.id);
    for (const [name, id] of state.environments) if (id === d.id && name.startsWith(`${projectId}#`)) state.environments.delete(name);
    state.environmentProjects.delete(d.id);
  },
};

function evolve(state: OrgState, event: OrgEvent): OrgState {
  dispatch(orgFold, event.type, state, event);
  return state;
}

export const orgDecider: Decider<OrgCommand, OrgState, OrgEvent> = {
  initialState: () => ({
    created: false,
    projects: new Map(),
    projectIds: new Map(),
    environments: new Map(),
    environmentProjects: new Map(),
    apiKeys: new Map(),
  }),
  evolve,
  decide,
};
