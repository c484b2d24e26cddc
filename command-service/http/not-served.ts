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
  { feature: 'PDP configurations', pattern: /^\/v2\/pdps(\/.*)?$/ },
];

/** The feature a path belongs to, if it is one this service does not serve. */
export function notServedFeature(path: string): string | undefined {
  const normalised = path.toLowerCase().replace(/\/+$/, '') || '/';
  return NOT_SERVED.find(({ pattern }) => pattern.test(normalised))?.feature;
}
