import type { RequestHandler } from 'express';
import { ForbiddenError } from '../../shared/errors';
import { authOf } from './auth';
import { labelRoutesUnder } from './request-metrics';

/** Where Permit's PDP takes facts (the SDKs' `proxy_facts_via_pdp` / `proxyFactsViaPdp`). */
export const PDP_FACTS_BASE = '/facts';
/** The API's facts routes, which serve them. */
export const FACTS_BASE = '/v2/facts/{proj_id}/{env_id}';

const PDP_FACTS_PATH = /^\/facts(?=\/|$)/i;

/**
 * Permit's PDP forwards `/facts/<path>` to `/v2/facts/{proj}/{env}/<path>` of Permit's API, for the
 * environment of its own API key, then (for the writes) waits until it has the change
 * (X-Wait-Timeout). This service is the API and the PDP at once: a `/facts/…` request is routed to
 * the `/v2/facts` route of the key's environment, with its method, query, body and headers (so the
 * wait headers bound its read-your-writes wait, read-your-writes.ts). Every `/v2/facts` operation is
 * so served, as the PDP forwards them all. The key must be environment-scoped (the PDP's 403
 * otherwise), and the environment check, access level and validation are the route's own.
 *
 * Express middleware after authentication; it rewrites `req.url`, so it must not be mounted at a path
 * (a mounted middleware's prefix is put back in front of the URL when it calls `next`).
 */
export function pdpFacts(): RequestHandler {
  return (req, res, next) => {
    if (!PDP_FACTS_PATH.test(req.path)) return next();
    const auth = authOf(res);
    if (auth.projectId === null || auth.environmentId === null) {
      throw new ForbiddenError(
        `${req.method} ${req.path}: facts sent through the PDP go to the API key's environment; this key is not scoped to one (use an environment key, or /v2/facts/{proj_id}/{env_id}/…)`,
        { required_scope: 'environment' },
      );
    }
    req.url = `/v2/facts/${auth.projectId}/${auth.environmentId}${req.url.slice(PDP_FACTS_BASE.length)}`;
    labelRoutesUnder(res, FACTS_BASE, PDP_FACTS_BASE);
    next();
  };
}
