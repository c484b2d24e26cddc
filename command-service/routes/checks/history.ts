import type { EventStore } from '../../../shared/eventstore/port';
import { ValidationError } from '../../../shared/errors';
import { authOf, keyEnvironment } from '../../http/auth';
import { POSITION_HEADER } from '../../http/services';
import { decisionHistory } from '../../time-travel/decision-history';
import { asOfSchema } from '../../time-travel/time-travel';
import { decisionHistoryAnswerSchema } from '../../http/responses';
import { route } from '../route';
import type { RouteContext } from '../route-context';
import { checkSchema } from './schemas';

export const decisionHistorySchema = checkSchema.omit({ explain: true, as_of: true }).extend({
  /** Start of the range (a log position or a time, as `as_of`); default: the environment's creation (or the start of the history). */
  since: asOfSchema.optional(),
  /** End of the range; default: now (the position the read models are at). */
  until: asOfSchema.optional(),
});

/**
 * `POST /allowed/history`: the history of one decision — the answer at
 * `since`, then every change of it until `until`, each with its position and
 * time, the roles gained or lost, the event that caused it (type, actor,
 * request id, audit metadata), how that event touches the decision, and the
 * explanation then. `X-Event-Position` is the end of the range.
 */
export function decisionHistoryRoutes(context: RouteContext, eventStore: EventStore): void {
  const { services } = context;
  route(
    context,
    {
      method: 'post',
      path: '/allowed/history',
      tag: 'Permission checks',
      body: decisionHistorySchema,
      response: decisionHistoryAnswerSchema,
      readOnly: true,
      summary: 'History of one decision: the answer at since, then every change until until, each with its cause and explanation',
    },
    async (_req, res, input) => {
      const body = input.body();
      const env = await keyEnvironment(services.readModels, authOf(res));
      const travel = services.timeTravel;
      const until = body.until === undefined ? services.freshness.position : await travel.resolve(env, body.until, ['body', 'until']);
      const since = body.since === undefined ? await travel.earliest(env) : await travel.resolve(env, body.since, ['body', 'since']);
      if (since > until) {
        throw new ValidationError([
          { loc: ['body', 'since'], msg: `since (position ${since}) is after until (position ${until})`, type: 'value_error' },
        ]);
      }
      const { context: _context, since: _since, until: _until, ...question } = body;
      const found = await decisionHistory(
        { history: travel.history, eventStore, readsAt: (position) => travel.readsAt(position).readModels },
        env.id,
        question,
        since,
        until,
      );
      res.setHeader(POSITION_HEADER, String(until));
      res.json({
        user: question.user,
        action: question.action,
        resource: question.resource,
        since: { position: since, ...(typeof body.since === 'string' ? { time: body.since } : {}) },
        until: { position: until, ...(typeof body.until === 'string' ? { time: body.until } : {}) },
        ...found,
      });
    },
  );
}
