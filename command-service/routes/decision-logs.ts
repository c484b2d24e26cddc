import type { Request, Response } from 'express';
import { NotFoundError } from '../../shared/errors';
import { canonicalId } from '../../shared/ids';
import type { EnvironmentDoc } from '../../shared/read-models/read-models';
import type { RouteModule } from '../app';
import { authOf, resolveEnvironment, resolveProject } from '../http/auth';
import { route } from './route';
import { decisionFilterOf, decisionLogEntrySchema, decisionLogPageSchema, decisionLogQuery, presentDecision } from './decision-log-schemas';

const tag = 'Decision logs';

/**
 * The decision log (docs/decision-logs.md) at Permit's path for it, `/v2/pdps/{proj_id}/{env_id}/audit_logs`:
 * the decisions the PDP endpoints answered in an environment, filtered and paged, newest first.
 * Entries of this process that still wait for their batch are written first, so a check is
 * listed as soon as it is answered (a check worker's, within DECISION_LOG_FLUSH_MS).
 */
export function decisionLogRoutes(): RouteModule {
  return ({ root }) => {
    const { services } = root;
    const rm = services.readModels;
    const environmentOf = async (req: Request<{ proj_id: string; env_id: string }>, res: Response): Promise<EnvironmentDoc> => {
      const auth = authOf(res);
      return resolveEnvironment(rm, auth, await resolveProject(rm, auth, req.params.proj_id), req.params.env_id);
    };

    route(
      root,
      {
        method: 'get',
        path: '/v2/pdps/{proj_id}/{env_id}/audit_logs',
        summary: "An environment's decision log (Permit's audit logs): the decisions its PDP endpoints answered, filtered, newest first",
        tag,
        query: decisionLogQuery,
        response: decisionLogPageSchema,
      },
      async (req, res, input) => {
        const env = await environmentOf(req, res);
        const query = input.query();
        await services.decisionLog.flush();
        const store = await services.decisionLog.opened();
        const found = await store.query(decisionFilterOf(env.id, query), { page: query.page, perPage: query.per_page, order: 'newest' });
        const pages = Math.ceil(found.total / query.per_page);
        res.json({ data: found.entries.map(presentDecision), total_count: found.total, page_count: pages, pagination_count: pages });
      },
    );

    route(
      root,
      {
        method: 'get',
        path: '/v2/pdps/{proj_id}/{env_id}/audit_logs/{log_id}',
        summary: 'One decision of the log by its id',
        tag,
        response: decisionLogEntrySchema,
      },
      async (req, res) => {
        const env = await environmentOf(req, res);
        await services.decisionLog.flush();
        const found = await (await services.decisionLog.opened()).get(env.id, canonicalId(req.params.log_id));
        if (!found) throw new NotFoundError(`Decision log entry '${req.params.log_id}' not found`);
        res.json(presentDecision(found));
      },
    );
  };
}
