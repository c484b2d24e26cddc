import type { Request } from 'express';
import type { GrantQueries } from '../../grant-queries/grant-queries';
import { apiKeyAuthenticator, authOf, keyEnvironment } from '../../http/auth';
import { bulkCheckAnswerSchema, checkAnswerSchema } from '../../http/responses';
import { route } from '../route';
import type { RouteContext } from '../route-context';
import { abacInputsOf } from './abac-inputs';
import { allowedFastLane } from './allowed-fast-lane';
import { changePosition } from '../../http/read-model-groups';
import { CachedChecks } from './cached-checks';
import { recordChecks, sourceOf } from './decision-entries';
import { atOnePosition, queriesAsOf, queryAsOf } from './positions';
import { bulkCheckSchema, checkSchema, explainQuery } from './schemas';
import { tracedContext } from '../../../shared/tracing/spans';

/**
 * `POST /allowed` and `POST /allowed/bulk`, Permit's PDP checks. The
 * environment is the API key's. Answers are HTTP 200 with `{allow}` (one per
 * check in order for bulk, as `{allow: [{allow}, …]}`); an unknown user,
 * instance or action is `allow: false`, never an error. Decisions come from a
 * cache that is exact (see CachedChecks); `Cache-Control: no-cache` reads the store.
 *
 * Every answer says in `X-Event-Position` the log position it was decided at
 * (a receipt: the same check with that `as_of` and `explain` re-derives it).
 * With `as_of` (body or query), the check is decided as of that past position
 * or time, from the history read model.
 */
export function allowedRoutes(context: RouteContext, queries: GrantQueries): void {
  const { services } = context;
  const rm = services.readModels;
  const decisions = new CachedChecks(
    queries,
    // Kept while no event that may change an answer is projected: the expiries do not empty it.
    changePosition(services.freshness, 'answers'),
    services.config.READ_CACHE_ENTRIES,
    services.metrics.checks.cache,
    () => services.clock.now(),
  );
  const single = services.metrics.checks.decisions('/allowed');
  const bulk = services.metrics.checks.decisions('/allowed/bulk');
  context.fastLanes.push(
    allowedFastLane({
      keys: apiKeyAuthenticator(services),
      decisions,
      freshness: services.freshness,
      decided: single,
      decisionLog: services.decisionLog,
      outcomes: services.metrics.checks.fastLane,
      http: services.metrics.http,
      logger: services.logger,
      maxBodyBytes: services.config.MAX_BODY_BYTES,
    }),
  );

  route(
    context,
    {
      method: 'post',
      path: '/allowed',
      tag: 'Permission checks',
      body: checkSchema,
      query: explainQuery,
      response: checkAnswerSchema,
      readOnly: true,
      summary: 'Check one permission; explain=true adds the derivation chain (or why nothing grants it); as_of decides as of then',
    },
    async (req, res, input) => {
      const body = input.body();
      // `explain` in the body wins; the query is read only without it.
      const explain = body.explain ?? input.query().explain ?? false;
      const env = await keyEnvironment(rm, authOf(res));
      const { explain: _explain, context: _context, as_of: bodyAsOf, ...question } = body;
      const abac = abacInputsOf(req.body, ['body']);
      const check = abac ? { ...question, abac } : question;
      const asOf = bodyAsOf ?? queryAsOf(req);
      const answer =
        asOf !== undefined
          ? await (
              await queriesAsOf(services, res, env, asOf, [bodyAsOf !== undefined ? 'body' : 'query', 'as_of'])
            ).check(env.id, check, explain)
          : await atOnePosition(services, res, async () =>
              explain
                ? await queries.check(env.id, check, true)
                : { allow: await decisions.allowed(env.id, check, noCache(req), tracedContext()) },
            );
      recordChecks(services.decisionLog, sourceOf(res, '/allowed', env), [{ question: check, allow: answer.allow }]);
      res.json(counted(single, answer));
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
      response: bulkCheckAnswerSchema,
      readOnly: true,
      summary: 'Check many permissions; one answer per check, in order; ?as_of= (or as_of per check) decides as of then',
    },
    async (req, res, input) => {
      const checks = input.body();
      const { explain: explainAll = false, as_of: allAsOf } = input.query();
      const env = await keyEnvironment(rm, authOf(res));
      const explained = (c: (typeof checks)[number]) => c.explain ?? explainAll;
      // Checks as of a past position (the query's, or their own), each position's queries made once.
      const past = new Map<string, Promise<GrantQueries>>();
      const pastQueries = (asOf: NonNullable<typeof allAsOf>, index: number) => {
        const key = JSON.stringify(asOf);
        let found = past.get(key);
        if (!found) {
          const where = asOf === checks[index]!.as_of ? ['body', index, 'as_of'] : ['query', 'as_of'];
          found = queriesAsOf(services, res, env, asOf, where, asOf === allAsOf);
          past.set(key, found);
        }
        return found;
      };
      const asOfOf = (c: (typeof checks)[number]) => c.as_of ?? allAsOf;
      // Each check as a question, with the attributes and context it sends for set rules.
      const questions = checks.map((check, index) => {
        const { explain: _explain, context: _context, as_of: _asOf, ...asked } = check;
        const abac = abacInputsOf((req.body as unknown[])[index], ['body', index]);
        return abac ? { ...asked, abac } : asked;
      });
      const decide = async () => {
        const current = questions.filter((_, i) => asOfOf(checks[i]!) === undefined && !explained(checks[i]!));
        const decided = await decisions.allowedAll(env.id, current, noCache(req), tracedContext());
        const out = [];
        let next = 0;
        for (const [index, check] of checks.entries()) {
          const question = questions[index]!;
          const asOf = asOfOf(check);
          if (asOf !== undefined) out.push(await (await pastQueries(asOf, index)).check(env.id, question, explained(check)));
          else out.push(explained(check) ? await queries.check(env.id, question, true) : { allow: decided[next++]! });
        }
        return out;
      };
      // With the query's as_of every check is a past one, and the header says its position.
      const answers = allAsOf !== undefined ? await decide() : await atOnePosition(services, res, decide);
      for (const answer of answers) counted(bulk, answer);
      // A check with its own as_of was decided at that position, not at the answer's.
      const ownPositions = await Promise.all(
        checks.map(async (c, i) => (c.as_of === undefined ? undefined : services.timeTravel.resolve(env, c.as_of, ['body', i, 'as_of']))),
      );
      recordChecks(
        services.decisionLog,
        sourceOf(res, '/allowed/bulk', env),
        answers.map((answer, index) => ({ question: questions[index]!, allow: answer.allow, position: ownPositions[index] })),
      );
      res.json({ allow: answers });
    },
  );
}

const noCache = (req: Request): boolean => /\bno-cache\b/i.test(req.header('cache-control') ?? '');

/** Counts one decision for `GET /metrics` and hands the answer on. */
function counted<A extends { allow: boolean }>(decisions: { allow: number; deny: number }, answer: A): A {
  if (answer.allow) decisions.allow++;
  else decisions.deny++;
  return answer;
}
