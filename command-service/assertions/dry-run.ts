import { z } from 'zod';
import type { AssertionDefinition } from '../../shared/events';
import { ValidationError } from '../../shared/errors';
import type { EnvironmentDoc, ReadModels } from '../../shared/read-models/read-models';
import { GrantQueries } from '../grant-queries/grant-queries';
import { boundedJsonValue } from '../http/validation';
import { assertionSchema, presentAssertion } from './api-shape';
import { checkOf } from './run';

/**
 * The dry run of a model edit (docs/assertions.md, "Dry run"): the edits, in the API's own
 * request vocabulary, are made on a scratch copy of the environment (never on the environment),
 * and what they would change is reported: the saved assertions whose answer flips, and the
 * decisions of a bounded sample of users × resource instances × actions that change.
 */

/** A scratch copy of one environment: the core API over read models of its own (app/scratch-copy.ts builds it). */
export interface ScratchCopy {
  /** Where the copy's API answers (loopback, this process only). */
  baseUrl: string;
  readModels: ReadModels;
  /** The real log position the copy was read up to. */
  position: number;
  close(): Promise<void>;
}
export type ScratchCopier = (env: EnvironmentDoc) => Promise<ScratchCopy>;

export const MAX_EDITS = 50;
export const MAX_SAMPLE = 100;
export const DEFAULT_SAMPLE = 20;
/** Checks of the sample, at most (before and after each): beyond, the sample is cut and says so. */
export const MAX_SAMPLE_CHECKS = 20_000;

const verdict = z.enum(['allow', 'deny']);

export const dryRunBodySchema = z
  .strictObject({
    edits: z
      .array(
        z.strictObject({
          method: z.enum(['POST', 'PUT', 'PATCH', 'DELETE']),
          path: z
            .string()
            .min(1)
            .max(2000)
            .regex(/^\/v2\/(schema|facts)\/[^/?#]+\/[^/?#]+\/[^#]+$/)
            .describe("A path of this environment's `/v2/schema/{proj_id}/{env_id}/…` or `/v2/facts/{proj_id}/{env_id}/…` API"),
          body: boundedJsonValue.optional().describe('The JSON body that request takes'),
        }),
      )
      .min(1)
      .max(MAX_EDITS)
      .describe('Requests made in order on the scratch copy, each as the API takes it'),
    sample: z
      .strictObject({
        users: z.number().int().min(0).max(MAX_SAMPLE).optional().describe(`The first users by key (default ${DEFAULT_SAMPLE})`),
        resources: z
          .number()
          .int()
          .min(0)
          .max(MAX_SAMPLE)
          .optional()
          .describe(`The first resource instances by key (default ${DEFAULT_SAMPLE})`),
      })
      .optional(),
  })
  .meta({ id: 'AssertionsDryRunRequest' });
export type DryRunBody = z.infer<typeof dryRunBodySchema>;

export const dryRunReportSchema = z
  .strictObject({
    position: z.number().int().min(0).describe("The environment's log position the scratch copy was taken at"),
    edits: z.array(z.strictObject({ method: z.string(), path: z.string(), status: z.number().int() })),
    assertions: z.strictObject({
      total: z.number().int().min(0),
      flipped: z.array(
        z.strictObject({
          assertion: assertionSchema,
          expected: verdict,
          before: verdict,
          after: verdict,
          passes_after: z.boolean(),
        }),
      ),
    }),
    decisions: z.strictObject({
      sample: z.strictObject({
        users: z.array(z.string()),
        resources: z.array(z.string()),
        checks: z.number().int().min(0),
        truncated: z.boolean().describe(`More than ${MAX_SAMPLE_CHECKS} checks: the rest were not made`),
      }),
      changed: z.array(
        z.strictObject({ user: z.string(), action: z.string(), resource: z.string(), tenant: z.string(), before: verdict, after: verdict }),
      ),
    }),
  })
  .meta({ id: 'AssertionsDryRun' });
export type DryRunReport = z.infer<typeof dryRunReportSchema>;

/**
 * The edit's path as the copy will be asked it: `/v2/(schema|facts)/{proj}/{env}/…` of this
 * environment (key or id), after the URL is normalised (no `..` leads elsewhere), or a 422
 * naming the edit's path.
 */
export function editPath(path: string, index: number, env: EnvironmentDoc, projectRefs: string[]): string {
  const refused = (msg: string) => new ValidationError([{ loc: ['body', 'edits', index, 'path'], msg, type: 'value_error' }]);
  const where = "an edit's path is one of this environment's /v2/schema/{proj_id}/{env_id}/… or /v2/facts/{proj_id}/{env_id}/… paths";
  let url: URL;
  try {
    url = new URL(path, SCRATCH_ORIGIN);
  } catch {
    throw refused(where);
  }
  const match = /^\/v2\/(schema|facts)\/([^/]+)\/([^/]+)\/.+$/.exec(url.pathname);
  if (url.origin !== SCRATCH_ORIGIN || !path.startsWith('/') || !match) throw refused(where);
  const [proj, envRef] = [decoded(match[2]!), decoded(match[3]!)];
  if (!projectRefs.includes(proj) || ![env.id, env.key].includes(envRef))
    throw refused(`an edit's path names this environment (${env.key}), not another`);
  return `${url.pathname}${url.search}`;
}

const SCRATCH_ORIGIN = 'http://scratch.invalid';

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Dry runs at once, at most: each copies the environment and runs an API of its own. Others wait their turn. */
const MAX_RUNNING = 2;
let running = 0;
const waiting: Array<() => void> = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running < MAX_RUNNING) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await work();
  } finally {
    // The slot passes to the next waiting run, or is freed.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

interface SampleCheck {
  user: string;
  action: string;
  type: string;
  key: string;
  tenant: string;
}

/** The sample: the first `users` users × the first `resources` instances by key × every action of the instance's type. */
async function sampleChecks(
  rm: ReadModels,
  envId: string,
  users: number,
  resources: number,
): Promise<{ checks: SampleCheck[]; users: string[]; resources: string[]; truncated: boolean }> {
  const userKeys = users === 0 ? [] : (await rm.users.find({ environment_id: envId }, { sortBy: 'key', limit: users })).map((u) => u.key);
  const instances = resources === 0 ? [] : await rm.instances.find({ environment_id: envId }, { sortBy: 'key', limit: resources });
  const actions = new Map<string, string[]>();
  for (const type of new Set(instances.map((i) => i.resource))) {
    const doc = await rm.resources.findOne({ environment_id: envId, key: type });
    actions.set(type, Object.keys(doc?.actions ?? {}).sort());
  }
  const checks: SampleCheck[] = [];
  let truncated = false;
  for (const user of userKeys)
    for (const i of instances)
      for (const action of actions.get(i.resource) ?? []) {
        if (checks.length >= MAX_SAMPLE_CHECKS) truncated = true;
        else checks.push({ user, action, type: i.resource, key: i.key, tenant: i.tenant });
      }
  return { checks, users: userKeys, resources: instances.map((i) => `${i.resource}:${i.key}`), truncated };
}

type Verdict = 'allow' | 'deny';

async function answers(rm: ReadModels, envId: string, assertions: AssertionDefinition[], checks: SampleCheck[]) {
  const queries = GrantQueries.over(rm);
  const verdictOf = async (request: Parameters<GrantQueries['check']>[1]): Promise<Verdict> =>
    (await queries.check(envId, request)).allow ? 'allow' : 'deny';
  const ofAssertions: Verdict[] = [];
  for (const a of assertions) ofAssertions.push(await verdictOf(checkOf(a)));
  const ofSample: Verdict[] = [];
  for (const c of checks)
    ofSample.push(await verdictOf({ user: c.user, action: c.action, resource: { type: c.type, key: c.key, tenant: c.tenant } }));
  return { ofAssertions, ofSample };
}

/**
 * Makes the edits on a scratch copy, each with the caller's `authorization` (so the copy's API
 * refuses what the caller may not do), and compares the answers before and after. An edit the
 * copy's API refuses is a 422 naming it (`["body", "edits", i]`) with that answer's status and
 * message. The copy is removed whatever happens.
 */
export async function dryRun(
  copier: ScratchCopier,
  env: EnvironmentDoc,
  body: DryRunBody,
  assertions: AssertionDefinition[],
  authorization: string,
): Promise<DryRunReport> {
  return inTurn(() => dryRunNow(copier, env, body, assertions, authorization));
}

async function dryRunNow(
  copier: ScratchCopier,
  env: EnvironmentDoc,
  body: DryRunBody,
  assertions: AssertionDefinition[],
  authorization: string,
): Promise<DryRunReport> {
  const copy = await copier(env);
  try {
    const sample = await sampleChecks(
      copy.readModels,
      env.id,
      body.sample?.users ?? DEFAULT_SAMPLE,
      body.sample?.resources ?? DEFAULT_SAMPLE,
    );
    // Actions an edit adds to a sampled type are checked after it only; before, they were not there to allow anything.
    const before = await answers(copy.readModels, env.id, assertions, sample.checks);
    const edits: DryRunReport['edits'] = [];
    for (const [index, edit] of body.edits.entries()) {
      const response = await fetch(`${copy.baseUrl}${edit.path}`, {
        method: edit.method,
        headers: { authorization, ...(edit.body === undefined ? {} : { 'content-type': 'application/json' }), 'x-wait-timeout': '60' },
        body: edit.body === undefined ? undefined : JSON.stringify(edit.body),
      });
      const text = await response.text();
      // A 5xx of the copy is a fault of ours, not of the edit: it is not passed off as a 422.
      if (response.status >= 500)
        throw new Error(`${edit.method} ${edit.path} failed on the scratch copy with ${response.status}: ${text.slice(0, 500)}`);
      if (response.status >= 400) throw editRefused(index, edit, response.status, text);
      edits.push({ method: edit.method, path: edit.path, status: response.status });
    }
    const after = await answers(copy.readModels, env.id, assertions, sample.checks);
    const flipped: DryRunReport['assertions']['flipped'] = [];
    assertions.forEach((a, i) => {
      const [b, x] = [before.ofAssertions[i]!, after.ofAssertions[i]!];
      if (b !== x)
        flipped.push({ assertion: presentAssertion(a), expected: a.expected, before: b, after: x, passes_after: x === a.expected });
    });
    const changed: DryRunReport['decisions']['changed'] = [];
    sample.checks.forEach((c, i) => {
      const [b, x] = [before.ofSample[i]!, after.ofSample[i]!];
      if (b !== x) changed.push({ user: c.user, action: c.action, resource: `${c.type}:${c.key}`, tenant: c.tenant, before: b, after: x });
    });
    return {
      position: copy.position,
      edits,
      assertions: { total: assertions.length, flipped },
      decisions: {
        sample: { users: sample.users, resources: sample.resources, checks: sample.checks.length, truncated: sample.truncated },
        changed,
      },
    };
  } finally {
    await copy.close();
  }
}

function editRefused(index: number, edit: { method: string; path: string }, status: number, text: string): ValidationError {
  let message = text.slice(0, 500);
  try {
    const parsed = JSON.parse(text) as { message?: unknown; detail?: unknown };
    if (typeof parsed.message === 'string') message = parsed.message;
    else if (parsed.detail !== undefined) message = JSON.stringify(parsed.detail).slice(0, 500);
  } catch {
    // not JSON: the text itself
  }
  return new ValidationError([
    {
      loc: ['body', 'edits', index],
      msg: `${edit.method} ${edit.path} was refused on the scratch copy with ${status}: ${message}`,
      type: 'value_error',
    },
  ]);
}
