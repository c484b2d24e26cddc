import type { Response } from 'express';
import { z } from 'zod';
import { AssertionsFailedError, NotFoundError, ValidationError } from '../../shared/errors';
import { canonicalId, newId } from '../../shared/ids';
import { streams, type AssertionDefinition } from '../../shared/events';
import {
  assertionCreateSchema,
  assertionSchema,
  assertionsFileAnswerSchema,
  assertionsFileSchema,
  assertionUpdateSchema,
  ASSERTIONS_FILE_VERSION,
  definitionOf,
  importAnswerSchema,
  importQuery,
  presentAssertion,
  runBodySchema,
  runQuery,
  runReportSchema,
  updatedDefinition,
} from '../assertions/api-shape';
import { dryRun, dryRunBodySchema, dryRunReportSchema, editPath, type ScratchCopier } from '../assertions/dry-run';
import { runAssertions } from '../assertions/run';
import { GrantQueries } from '../grant-queries/grant-queries';
import { envOf } from '../http/auth';
import { executeEnvCommand, POSITION_HEADER, type Services } from '../http/services';
import { paginationSchema } from '../http/validation';
import { atOnePosition } from './checks/positions';
import { route } from './route';
import type { RouteContext } from './route-context';

const assertionPageSchema = z
  .strictObject({ data: z.array(assertionSchema), total_count: z.number().int().min(0), page_count: z.number().int().min(0) })
  .meta({ id: 'AssertionPage' });

/** The environment's saved assertions, from its command state (caught up with the log), in the order they were made. */
export async function assertionsOf(services: Services, environmentId: string): Promise<AssertionDefinition[]> {
  const state = await services.envCommands.currentState(streams.environment(environmentId));
  return [...state.assertions.values()];
}

async function findAssertion(services: Services, environmentId: string, ref: string): Promise<AssertionDefinition> {
  const state = await services.envCommands.currentState(streams.environment(environmentId));
  const found = state.assertions.get(canonicalId(ref));
  if (!found) throw new NotFoundError(`Assertion '${ref}' not found`, { assertion: ref });
  return found;
}

/**
 * Saved assertions (docs/assertions.md) under `/v2/schema/{proj_id}/{env_id}/assertions`: create,
 * list, get, change, delete, export and import as a file, and run against the environment now or
 * as of a past position. Stored as events of the environment's stream (AssertionSaved,
 * AssertionDeleted), so they are in the audit log and copied with the policy.
 * `queries`: the checks over the current read models (those `POST /allowed` answers from);
 * `scratchCopier`: makes the scratch copies a dry run edits (app/scratch-copy.ts).
 */
export function assertionRoutes(context: RouteContext, queries: GrantQueries, scratchCopier: ScratchCopier): void {
  const { services } = context;

  const save = async (
    req: Parameters<Parameters<typeof route>[2]>[0],
    res: Response,
    assertions: AssertionDefinition[],
    replaceAll = false,
    mustExist = false,
  ) => executeEnvCommand(services, req, res, envOf(res).id, { type: 'SaveAssertions', assertions, replaceAll, mustExist });

  route(
    context,
    {
      method: 'post',
      path: '/assertions',
      summary: 'Save an assertion: a check and the answer it expects',
      tag: 'Assertions',
      body: assertionCreateSchema,
      response: assertionSchema,
    },
    async (req, res, input) => {
      const definition = definitionOf(newId(), input.body());
      await save(req, res, [definition]);
      res.json(presentAssertion(definition));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/assertions',
      summary: 'List the saved assertions, in the order they were made',
      tag: 'Assertions',
      query: paginationSchema,
      response: z.union([z.array(assertionSchema), assertionPageSchema]),
    },
    async (_req, res, input) => {
      const p = input.query();
      const all = await assertionsOf(services, envOf(res).id);
      const data = all.slice((p.page - 1) * p.per_page, p.page * p.per_page).map(presentAssertion);
      res.json(p.include_total_count ? { data, total_count: all.length, page_count: Math.ceil(all.length / p.per_page) } : data);
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/assertions/export',
      summary: 'Every saved assertion as a file to keep in git (PUT …/assertions/import takes it back)',
      tag: 'Assertions',
      response: assertionsFileAnswerSchema,
    },
    async (_req, res) => {
      const all = await assertionsOf(services, envOf(res).id);
      res.json({ version: ASSERTIONS_FILE_VERSION, assertions: all.map(presentAssertion) });
    },
  );

  route(
    context,
    {
      method: 'put',
      path: '/assertions/import',
      summary: 'Import an assertions file: replace (default) makes the set exactly the file, merge adds and updates only; one write',
      tag: 'Assertions',
      body: assertionsFileSchema,
      query: importQuery,
      response: importAnswerSchema,
    },
    async (req, res, input) => {
      const { mode } = input.query();
      const file = input.body();
      const env = envOf(res).id;
      const before = new Map((await assertionsOf(services, env)).map((a) => [a.id, a]));
      const seen = new Set<string>();
      const definitions = file.assertions.map(({ id, ...rest }, i) => {
        const chosen = id === undefined ? newId() : canonicalId(id);
        if (seen.has(chosen)) throw duplicateId(i, chosen);
        seen.add(chosen);
        return definitionOf(chosen, rest);
      });
      const outcome = await save(req, res, definitions, mode === 'replace');
      const saved = new Set(outcome.events.flatMap((e) => (e.type === 'AssertionSaved' ? [e.data.id] : [])));
      const created = definitions.filter((d) => !before.has(d.id)).length;
      const updated = definitions.filter((d) => before.has(d.id) && saved.has(d.id)).length;
      res.json({
        created,
        updated,
        deleted: outcome.events.filter((e) => e.type === 'AssertionDeleted').length,
        unchanged: definitions.length - created - updated,
        assertions: (await assertionsOf(services, env)).map(presentAssertion),
      });
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/assertions/run',
      summary: 'Run the saved assertions (now, or as_of a past position or time): each answer against the expected one',
      tag: 'Assertions',
      body: runBodySchema,
      query: runQuery,
      response: runReportSchema,
    },
    async (_req, res, input) => {
      const body = input.body() ?? {};
      const { fail_on_mismatch: failOnMismatch = false } = input.query();
      const env = envOf(res);
      let assertions = await assertionsOf(services, env.id);
      if (body.ids) {
        const known = new Set(assertions.map((a) => a.id));
        const missing = body.ids.find((id) => !known.has(canonicalId(id)));
        if (missing) throw new NotFoundError(`Assertion '${missing}' not found`, { assertion: missing });
        const wanted = new Set(body.ids.map(canonicalId));
        assertions = assertions.filter((a) => wanted.has(a.id));
      }
      let report;
      if (body.as_of !== undefined) {
        const past = await services.timeTravel.at(env, body.as_of, ['body', 'as_of']);
        report = await runAssertions(GrantQueries.over(past.readModels), env.id, assertions, past.position);
        res.setHeader(POSITION_HEADER, String(past.position));
      } else {
        let position = 0;
        const decided = atOnePosition(services, { setHeader: (_name: string, value: string) => (position = Number(value)) }, () =>
          runAssertions(queries, env.id, assertions, services.freshness.position),
        );
        report = { ...(await decided), position };
        res.setHeader(POSITION_HEADER, String(position));
      }
      if (failOnMismatch && !report.passed) {
        const names = report.results.filter((r) => !r.passed).map((r) => r.assertion.name ?? r.assertion.id);
        throw new AssertionsFailedError(
          `${report.failed} of ${report.total} assertions failed at position ${report.position}: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', …' : ''}`,
          { report },
        );
      }
      res.json(report);
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/assertions/dry_run',
      summary:
        'Dry run of a model edit on a scratch copy: the assertions whose answer it flips and the changed decisions of a sample of users × resources',
      tag: 'Assertions',
      body: dryRunBodySchema,
      response: dryRunReportSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const env = envOf(res);
      const project = await services.readModels.projects.get(env.project_id);
      const projectRefs = [env.project_id, ...(project ? [project.key] : [])];
      const edits = body.edits.map((edit, i) => ({ ...edit, path: editPath(edit.path, i, env, projectRefs) }));
      const report = await dryRun(
        scratchCopier,
        env,
        { ...body, edits },
        await assertionsOf(services, env.id),
        req.headers.authorization ?? '',
      );
      res.setHeader(POSITION_HEADER, String(report.position));
      res.json(report);
    },
  );

  route(
    context,
    { method: 'get', path: '/assertions/{assertion_id}', summary: 'Get a saved assertion', tag: 'Assertions', response: assertionSchema },
    async (req, res) => {
      res.json(presentAssertion(await findAssertion(services, envOf(res).id, req.params.assertion_id)));
    },
  );

  route(
    context,
    {
      method: 'patch',
      path: '/assertions/{assertion_id}',
      summary: 'Change a saved assertion: the fields given replace the stored ones',
      tag: 'Assertions',
      body: assertionUpdateSchema,
      response: assertionSchema,
    },
    async (req, res, input) => {
      const change = input.body();
      const stored = await findAssertion(services, envOf(res).id, req.params.assertion_id);
      const definition = updatedDefinition(stored, change);
      await save(req, res, [definition], false, true);
      res.json(presentAssertion(definition));
    },
  );

  route(
    context,
    { method: 'delete', path: '/assertions/{assertion_id}', summary: 'Delete a saved assertion', tag: 'Assertions', status: 204 },
    async (req, res) => {
      const stored = await findAssertion(services, envOf(res).id, req.params.assertion_id);
      await executeEnvCommand(services, req, res, envOf(res).id, { type: 'DeleteAssertion', id: stored.id });
      res.status(204).end();
    },
  );
}

function duplicateId(index: number, id: string) {
  return new ValidationError([
    { loc: ['body', 'assertions', index, 'id'], msg: `id ${id} is given twice in the file`, type: 'value_error' },
  ]);
}
