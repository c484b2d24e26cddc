import { DomainError } from '../../shared/errors';

/** A part of Permit's API this service does not serve: 501 in the error shape, naming it. */
export class NotServedError extends DomainError {
  readonly errorCode = 'NOT_IMPLEMENTED';
  readonly title = 'Not served';
}

const segment = '[^/]+';

/**
 * Permit's API families that the SDKs can call but this service does not
 * serve (docs/permit-compat.md, "Not served"): a request to them that no
 * route took is answered 501 naming the feature, not a bare 404, so that a
 * team moving from Permit sees at once what is missing. Matched on the path
 * express routed (case-insensitive, trailing slash ignored), any method.
 */
export const NOT_SERVED: ReadonlyArray<{ feature: string; pattern: RegExp }> = [
  { feature: 'Members (users of the Permit dashboard)', pattern: /^\/v2\/members(\/.*)?$/ },
  { feature: 'Invites (of dashboard members)', pattern: /^\/v2\/invites(\/.*)?$/ },
  { feature: 'Dashboard sessions and Permit Elements logins', pattern: /^\/v2\/auth(\/.*)?$/ },
  { feature: 'Permit Elements', pattern: /^\/v2\/elements(\/.*)?$/ },
  { feature: 'GitOps (policy repositories)', pattern: new RegExp(`^/v2/projects/${segment}/repos(/.*)?$`) },
  { feature: 'Proxy configs (Permit\u2019s API proxy)', pattern: new RegExp(`^/v2/facts/${segment}/${segment}/proxy_configs(/.*)?$`) },
  { feature: 'PDP configurations', pattern: /^\/v2\/pdps(\/.*)?$/ },
  {
    // The Python SDK's proxy_facts_via_pdp sends facts to `{pdp}/facts/<kind>`, for a PDP that forwards them
    // to Permit's API; here the API is the same server, so such a client points its `api_url` at it instead.
    feature: 'Facts proxied through the PDP (Python proxy_facts_via_pdp): send facts to /v2/facts/{proj}/{env} on this server',
    pattern: /^\/facts(\/.*)?$/,
  },
];

/** The feature a path belongs to, if it is one this service does not serve. */
export function notServedFeature(path: string): string | undefined {
  const normalised = path.toLowerCase().replace(/\/+$/, '') || '/';
  return NOT_SERVED.find(({ pattern }) => pattern.test(normalised))?.feature;
}
