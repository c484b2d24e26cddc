import { z } from 'zod';

/** Events of an organisation stream: the organisation, its projects, environments and API keys. */

const organizationCreated = z.object({
  type: z.literal('OrganizationCreated'),
  data: z.object({ id: z.string(), key: z.string(), name: z.string() }),
});

const projectCreated = z.object({
  type: z.literal('ProjectCreated'),
  data: z.object({
    id: z.string(),
    key: z.string(),
    name: z.string(),
    /** null: none given ('' in events written before absent was kept as null). */
    description: z.string().nullable(),
    /** Absent in events written before they were kept: null and {}. */
    urnNamespace: z.string().optional(),
    settings: z.record(z.string(), z.unknown()).optional(),
  }),
});

export const environmentFieldsSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  key: z.string(),
  name: z.string(),
  /** null: none given ('' in events written before absent was kept as null); so too customBranchName. */
  description: z.string().nullable(),
  customBranchName: z.string().nullable(),
  jwks: z.record(z.string(), z.unknown()),
  settings: z.record(z.string(), z.unknown()),
});

const environmentCreated = z.object({
  type: z.literal('EnvironmentCreated'),
  data: environmentFieldsSchema.extend({
    /** Set when the environment was made by a copy task (audit trail). */
    copiedFromTaskId: z.string().optional(),
  }),
});

/** Only the fields the update named; the others keep their values. */
const projectUpdated = z.object({
  type: z.literal('ProjectUpdated'),
  data: z.object({
    id: z.string(),
    name: z.string().optional(),
    description: z.string().optional(),
    settings: z.record(z.string(), z.unknown()).optional(),
  }),
});

/** The project is gone; its environments and keys were deleted by the events before this one. */
const projectDeleted = z.object({
  type: z.literal('ProjectDeleted'),
  data: z.object({ id: z.string() }),
});

const environmentUpdated = z.object({
  type: z.literal('EnvironmentUpdated'),
  data: z.object({
    id: z.string(),
    name: z.string().optional(),
    description: z.string().optional(),
    customBranchName: z.string().optional(),
    jwks: z.record(z.string(), z.unknown()).optional(),
    settings: z.record(z.string(), z.unknown()).optional(),
  }),
});

/** The environment is gone; its keys were deleted (ApiKeyDeleted) by the events before this one. */
const environmentDeleted = z.object({
  type: z.literal('EnvironmentDeleted'),
  data: z.object({ id: z.string() }),
});

export const apiKeyScopeSchema = z.object({
  level: z.enum(['organization', 'project', 'environment']),
  projectId: z.string().nullable(),
  environmentId: z.string().nullable(),
});
export type ApiKeyScope = z.infer<typeof apiKeyScopeSchema>;

/** What a key may do: `read` (reads and permission checks), `write` (also schema and facts), `admin` (also keys, projects, environments). */
export const apiKeyAccessLevelSchema = z.enum(['admin', 'write', 'read']);
export type ApiKeyAccessLevel = z.infer<typeof apiKeyAccessLevelSchema>;

const apiKeyCreated = z.object({
  type: z.literal('ApiKeyCreated'),
  data: z.object({
    id: z.string(),
    name: z.string(),
    /** sha256 of the secret; the secret itself is never stored. */
    secretHash: z.string(),
    scope: apiKeyScopeSchema,
    /** Absent in events written before access levels existed: those keys are `admin`. */
    accessLevel: apiKeyAccessLevelSchema.optional(),
  }),
});

/** The key is revoked: its secret is refused from now on. */
const apiKeyDeleted = z.object({
  type: z.literal('ApiKeyDeleted'),
  data: z.object({ id: z.string() }),
});

/** The key keeps its id and scope under a new secret; the old secret is refused from now on. */
const apiKeySecretRotated = z.object({
  type: z.literal('ApiKeySecretRotated'),
  data: z.object({ id: z.string(), secretHash: z.string() }),
});

export const orgEventSchemas = [
  organizationCreated,
  projectCreated,
  environmentCreated,
  apiKeyCreated,
  apiKeyDeleted,
  apiKeySecretRotated,
  projectUpdated,
  projectDeleted,
  environmentUpdated,
  environmentDeleted,
] as const;
export type OrgEvent = z.infer<(typeof orgEventSchemas)[number]>;
