import type { Request, Response } from 'express';
import { envOf } from '../http/auth';
import { POSITION_HEADER, type Services } from '../http/services';
import { paginationSchema, parse } from '../http/validation';
import type { ReadModels } from '../../shared/read-models/read-models';
import { asOfQuery } from './time-travel';

/** A list's query with `as_of` (see asOfQuery). */
export const pastPaginationSchema = paginationSchema.extend(asOfQuery.shape);

/**
 * The read models a read of the facts or schema API answers from: the current
 * ones, or those as of the query's `as_of` (the answer then says its position
 * in `X-Event-Position`). Same documents, same shapes: the routes run
 * unchanged over either. Only `as_of` is parsed here (422 if malformed), so a
 * route keeps its order of checks for the rest of its query.
 */
export async function readModelsAsOf(services: Services, req: Request, res: Response): Promise<ReadModels> {
  const asOf = parse(asOfQuery, req.query, 'query').as_of;
  if (asOf === undefined) return services.readModels;
  const past = await services.timeTravel.at(envOf(res), asOf);
  res.setHeader(POSITION_HEADER, String(past.position));
  return past.readModels;
}
