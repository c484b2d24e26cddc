import type { z } from 'zod';
import { given } from '../http/validation';

/** The scope fields of an API key request (`POST /v2/api-key`). */
interface KeyScope {
  organization_id?: string;
  project_id?: string;
  environment_id?: string;
  object_type?: 'org' | 'project' | 'env';
}

/**
 * A key's scope is said, never assumed: Permit requires `organization_id`; we
 * also take `object_type` or `project_id` alone. Without any of them (`{}`) the
 * request is refused (422) rather than minting an organisation admin key. The
 * scope follows `object_type` when given, else the ids given; contradictions
 * are refused. Each rule is also stated in the document (`allOf`).
 */
export function scopeSaid<S extends z.ZodType<KeyScope>>(schema: S): S {
  return schema
    .superRefine((body, ctx) => {
      const fail = (path: string[], message: string) => ctx.addIssue({ code: 'custom', path, message });
      const { organization_id: org, project_id: project, environment_id: env, object_type: type } = body;
      if (org === undefined && project === undefined && type === undefined)
        fail([], 'say which key to create: give organization_id, project_id or object_type');
      if (env !== undefined && project === undefined) fail(['project_id'], 'is required with environment_id');
      if (type === 'env' && env === undefined) fail(['environment_id'], "is required for an environment key (object_type 'env')");
      if (type === 'project' && project === undefined) fail(['project_id'], "is required for a project key (object_type 'project')");
      if (type === 'project' && env !== undefined) fail(['environment_id'], "must not be given for a project key (object_type 'project')");
      if (type === 'org' && (project !== undefined || env !== undefined))
        fail(['object_type'], "'org' takes neither project_id nor environment_id");
    })
    .meta({
      allOf: [
        { anyOf: [given('organization_id'), given('project_id'), given('object_type')] },
        { if: given('environment_id'), then: given('project_id') },
        { if: { required: ['object_type'], properties: { object_type: { const: 'env' } } }, then: given('environment_id') },
        {
          if: { required: ['object_type'], properties: { object_type: { const: 'project' } } },
          then: { ...given('project_id'), not: given('environment_id') },
        },
        {
          if: { required: ['object_type'], properties: { object_type: { const: 'org' } } },
          then: { not: { anyOf: [given('project_id'), given('environment_id')] } },
        },
      ],
    });
}
