import type { Request, Response } from 'express';
import { streams } from '../../shared/events';
import { ForbiddenError } from '../../shared/errors';
import type { RouteModule } from '../app';
import type { AuditLog } from '../audit/audit-log';
import type { AuditStreams } from '../audit/event-stream';
import {
  environmentLogQuery,
  environmentStreamQuery,
  filterGroups,
  organizationLogQuery,
  organizationStreamQuery,
  pageRequest,
} from '../audit/filters';
import { authOf, resolveEnvironment, resolveProject } from '../http/auth';
import type { Services } from '../http/services';
import { auditPageSchema, auditStreamMessageSchema } from '../http/responses';
import { route } from './route';

export interface EventRouteDependencies {
  log: AuditLog;
  streams: AuditStreams;
}

const tag = 'Audit log';

/**
 * The audit log (docs/audit.md): every change of an environment, or of the
 * organisation (projects, environments, API keys), filtered and paged, or
 * followed live as server-sent events.
 */
export function eventRoutes(deps: EventRouteDependencies): RouteModule {
  return ({ root }) => {
    const { services } = root;
    const rm = services.readModels;
    const environmentScope = async (req: Request<{ proj_id: string; env_id: string }>, res: Response) => {
      const auth = authOf(res);
      const env = await resolveEnvironment(rm, auth, await resolveProject(rm, auth, req.params.proj_id), req.params.env_id);
      return streams.environment(env.id);
    };

    route(
      root,
      {
        method: 'get',
        path: '/v2/events/{proj_id}/{env_id}',
        summary: "An environment's audit log: its events in log order, filtered, one page at a time",
        tag,
        query: environmentLogQuery,
        response: auditPageSchema,
      },
      async (req, res, input) => {
        const scope = await environmentScope(req, res);
        res.json(await deps.log.page(scope, pageRequest(input.query()), head(services)));
      },
    );

    route(
      root,
      {
        method: 'get',
        path: '/v2/events/{proj_id}/{env_id}/stream',
        summary: "An environment's audit log as server-sent events (id: position), resuming from Last-Event-ID",
        tag,
        query: environmentStreamQuery,
        response: auditStreamMessageSchema,
        mediaType: 'text/event-stream',
      },
      async (req, res, input) => {
        const scope = await environmentScope(req, res);
        const query = input.query();
        const from = deps.streams.startOf(req, query.after);
        await deps.streams.serve(req, res, scope, filterGroups(query), from);
      },
    );

    route(
      root,
      {
        method: 'get',
        path: '/v2/events',
        summary: "The organisation's audit log (projects, environments, API keys): organisation keys only",
        tag,
        query: organizationLogQuery,
        response: auditPageSchema,
      },
      async (_req, res, input) => {
        const scope = organizationScope(res);
        res.json(await deps.log.page(scope, pageRequest(input.query()), head(services)));
      },
    );

    route(
      root,
      {
        method: 'get',
        path: '/v2/events/stream',
        summary: "The organisation's audit log as server-sent events: organisation keys only",
        tag,
        query: organizationStreamQuery,
        response: auditStreamMessageSchema,
        mediaType: 'text/event-stream',
      },
      async (req, res, input) => {
        const scope = organizationScope(res);
        const query = input.query();
        const from = deps.streams.startOf(req, query.after);
        await deps.streams.serve(req, res, scope, filterGroups(query), from);
      },
    );
  };
}

/** The read models' position: the index holds every event up to it. */
const head = (services: Services) => services.freshness.position;

function organizationScope(res: Response): string {
  const auth = authOf(res);
  if (auth.projectId !== null) throw new ForbiddenError("Only an organisation API key may read the organisation's audit log");
  return streams.organization(auth.organizationId);
}
