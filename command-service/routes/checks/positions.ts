import type { Request, Response } from 'express';
import { GrantQueries } from '../../grant-queries/grant-queries';
import { POSITION_HEADER, type Services } from '../../http/services';
import { parse } from '../../http/validation';
import type { EnvironmentDoc } from '../../../shared/read-models/read-models';
import { asOfQuery, type AsOf } from '../../time-travel/time-travel';

/** Attempts at an answer whose read models did not move while it was computed. */
const ATTEMPTS = 5;

/**
 * A decision receipt: computes an answer from the current read models and says
 * in `X-Event-Position` the log position they were at. If the position moved
 * while the answer was computed (a projected batch in between: the answer may
 * mix two states), it is computed again, up to five times (then the last
 * attempt's starting position is given). That position with `as_of` gives the
 * same answer later.
 */
export async function atOnePosition<T>(
  services: { readonly freshness: { readonly position: number } },
  res: { setHeader(name: string, value: string): unknown },
  answer: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const at = services.freshness.position;
    const result = await answer();
    if (services.freshness.position === at || attempt >= ATTEMPTS) {
      res.setHeader(POSITION_HEADER, String(at));
      return result;
    }
  }
}

/** The grant queries as of `asOf` for the environment (its position in `X-Event-Position` when `header`). */
export async function queriesAsOf(
  services: Services,
  res: Response,
  env: EnvironmentDoc,
  asOf: AsOf,
  where: Array<string | number>,
  header = true,
): Promise<GrantQueries> {
  const past = await services.timeTravel.at(env, asOf, where);
  if (header) res.setHeader(POSITION_HEADER, String(past.position));
  return GrantQueries.over(past.readModels);
}

/** `?as_of=` alone (422 if malformed), for routes that read the rest of their query later or not at all. */
export const queryAsOf = (req: Request): AsOf | undefined => parse(asOfQuery, req.query, 'query').as_of;
