import type { Request } from 'express';
import type { GrantQueries } from '../../grant-queries/grant-queries';
import { authOf, keyEnvironment } from '../../http/auth';
import { route } from '../route';
import type { RouteContext } from '../route-context';
import { CachedChecks } from './cached-checks';
import { bulkCheckSchema, checkSchema, explainQuery } from './schemas';

/**
 * `POST /allowed` and `POST /allowed/bulk`, Permit's PDP checks. The
 * environment is the API key's. Answers are HTTP 200 with `{allow}` (one per
 * check in order for bulk, as `{allow: [{allow}, …]}`); an unknown user,
 * instance or action is `allow: false`, never an error. Decisions come from a
 * cache that is exact (see CachedChecks); `Cache-Control: no-cache` reads the store.
 */
export function allowedRoutes(context: RouteContext, queries: GrantQueries): void {
  const { services } = context;
  const rm = services.readModels;
  const decisions = new CachedChecks(
    queries,
    () => services.freshness.position,
    services.config.READ_CACHE_ENTRIES,
    services.metrics.checks.cache,
  );
  const single = services.metrics.checks.decisions('/allowed');
  const bulk = services.metrics.checks.decisions('/allowed/bulk');

  route(
    context,
    {
      method: 'post',
      path: '/allowed',
      tag: 'Permission checks',
      body: checkSchema,
      query: explainQuery,
      summary: 'Check one permission; explain=true adds the derivation chain (or why nothing grants it)',
    },
    async (req, res, input) => {
      const body = input.body();
      // `explain` in the body wins; the query is read only without it.
      const explain = body.explain ?? input.query().explain ?? false;
      const env = await keyEnvironment(rm, authOf(res));
      const { explain: _explain, context: _context, ...check } = body;
      const answer = explain ? await queries.check(env.id, check, true) : { allow: await decisions.allowed(env.id, check, noCache(req)) };
      if (answer.allow) single.allow++;
      else single.deny++;
      res.json(answer);
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/allowed/bulk',
      tag: 'Permission checks',
      body: bulkCheckSchema,
      query: explainQuery,
      summary: 'Check many permissions; one answer per check, in order',
    },
    async (req, res, input) => {
      const checks = input.body();
      const explainAll = input.query().explain ?? false;
      const env = await keyEnvironment(rm, authOf(res));
      const explained = (c: (typeof checks)[number]) => c.explain ?? explainAll;
      const decided = await decisions.allowedAll(
        env.id,
        checks.filter((c) => !explained(c)),
        noCache(req),
      );
      const answers = [];
      let next = 0;
      for (const check of checks) {
        const answer = explained(check) ? await queries.check(env.id, check, true) : { allow: decided[next++]! };
        if (answer.allow) bulk.allow++;
        else bulk.deny++;
        answers.push(answer);
      }
      res.json({ allow: answers });
    },
  );
}

const noCache = (req: Request): boolean => /\bno-cache\b/i.test(req.header('cache-control') ?? '');
