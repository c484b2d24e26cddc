import { z } from 'zod';

/**
 * Events of a background-task stream (`task-<taskId>`). The request is the first
 * event; every state change of the task after it is an event too, so a task's
 * whole life (attempts, progress, outcome) is auditable in the log.
 */

const str = z.string();
const json = z.record(z.string(), z.unknown());

/** Where a copy goes: a new environment (created by the task) or an existing one. */
export const copyTargetSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('new'),
    /** Deterministic from the task id, so a retried task creates the same environment. */
    environmentId: str,
    key: str,
    name: str,
    description: str.nullable(),
    customBranchName: str.nullable(),
    jwks: json,
    settings: json,
  }),
  z.object({
    kind: z.literal('existing'),
    /** The key or id the client gave; `environmentId` null when it named no environment of the project. */
    ref: str,
    environmentId: str.nullable(),
    conflictStrategy: z.enum(['fail', 'overwrite']),
  }),
]);
export type CopyTarget = z.infer<typeof copyTargetSchema>;

/** How far back the copy looks: a global log position or a point in time (ISO 8601, UTC). */
export const copyAsOfSchema = z.union([z.object({ position: z.number().int().min(0) }), z.object({ time: str })]).nullable();
export type CopyAsOf = z.infer<typeof copyAsOfSchema>;

/** The task's error as the result endpoint reports it (the seed's error object minus id and link). */
export const taskErrorSchema = z.object({ code: str, title: str, message: str, additionalInfo: json.optional() });
export type TaskError = z.infer<typeof taskErrorSchema>;

const copyFilterSchema = z.object({ include: z.array(str).optional(), exclude: z.array(str).optional() });

const ev = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) => z.object({ type: z.literal(type), data: z.object(shape) });

export const taskEventSchemas = [
  /**
   * A client asked for an environment copy. The source is read up to this
   * event's own log position (or `asOf`, if earlier), so later writes to the
   * source never leak into the copy.
   */
  ev('EnvironmentCopyRequested', {
    taskId: str,
    organizationId: str,
    projectId: str,
    /** The key or id the client gave; `environmentId` null when it named no environment of the project. */
    source: z.object({ ref: str, environmentId: str.nullable() }),
    target: copyTargetSchema,
    /**
     * The policy is always copied; `facts` adds the directory data. `resources`
     * and `roles` (Permit's include/exclude key filters, `*` a wildcard) narrow
     * both; absent in requests made before they were honoured.
     */
    scope: z.object({
      facts: z.boolean(),
      resources: copyFilterSchema.optional(),
      roles: copyFilterSchema.optional(),
      /** Condition sets by key (ABAC), user sets and resource sets; one left out takes its set rules and descendants with it. */
      userSets: copyFilterSchema.optional(),
      resourceSets: copyFilterSchema.optional(),
    }),
    asOf: copyAsOfSchema,
    /** Length of the source stream when the request was accepted: the denominator of the progress report. */
    sourceEventsTotal: z.number().int().min(0),
  }),
  /** A worker began (or resumed) the task; `attempt` counts from 1 and fences out older attempts. */
  ev('TaskStarted', { taskId: str, attempt: z.number().int().min(1) }),
  ev('TaskProgressed', {
    taskId: str,
    attempt: z.number().int().min(1),
    sourceEventsRead: z.number().int().min(0),
    eventsCopied: z.number().int().min(0),
  }),
  ev('TaskSucceeded', {
    taskId: str,
    attempt: z.number().int().min(1),
    /** The environment the copy produced or wrote into. */
    environmentId: str,
    sourceEventsRead: z.number().int().min(0),
    eventsCopied: z.number().int().min(0),
  }),
  ev('TaskFailed', { taskId: str, attempt: z.number().int().min(0), error: taskErrorSchema }),
] as const;
export type TaskEvent = z.infer<(typeof taskEventSchemas)[number]>;
