/**
 * Permit's `ErrorCode` enum. Both SDKs parse an error body's `error_code` against it (Python:
 * `ErrorDetails`, pydantic), and a code outside it makes the SDK raise a validation error instead
 * of its typed API error. Every body this service sends carries one of these.
 */
export const PERMIT_ERROR_CODES: ReadonlySet<string> = new Set([
  'INVALID_INPUT',
  'INVALID_JWKS_CONFIGURATION',
  'UNEXPECTED_ERROR',
  'NOT_FOUND',
  'DUPLICATE_ENTITY',
  'EMPTY_DECISION_LOGS',
  'MISSING_REQUEST_ATTRIBUTE',
  'FORBIDDEN_ACCESS',
  'INVALID_PERMISSION_FORMAT',
  'MISSING_PERMISSIONS',
  'UNSUPPORTED_ATTRIBUTE_TYPE',
  'MISSING_RESOURCE_ATTRIBUTE',
  'MISMATCH_ATTRIBUTES_TYPES',
  'INVALID_POLICY_REPO_STATUS',
  'INVALID_SMTP_CONFIGURATION',
  'MISMATCH_RESOURCE_INSTANCES_TENANTS',
  'PAGINATION_SIZE_OVERREACHED',
  'MISMATCH_RELATION_TYPE',
  'CONCURRENT_OPERATION_DISALLOWED',
  'UNAUTHORIZED',
]);

/**
 * Our codes that Permit's enum has no member for, and the member each is sent as: the request's
 * fault (INVALID_INPUT) or the service's (UNEXPECTED_ERROR). The finer code goes beside it in
 * `reason`; the status tells the rest (405, 413, 415, 424, 429, 431, 501, 503).
 */
const PERMIT_CODE_OF = {
  METHOD_NOT_ALLOWED: 'INVALID_INPUT',
  PAYLOAD_TOO_LARGE: 'INVALID_INPUT',
  UNSUPPORTED_MEDIA_TYPE: 'INVALID_INPUT',
  REQUEST_HEADER_FIELDS_TOO_LARGE: 'INVALID_INPUT',
  SYNC_TIMEOUT: 'UNEXPECTED_ERROR',
  TOO_MANY_REQUESTS: 'UNEXPECTED_ERROR',
  NOT_IMPLEMENTED: 'UNEXPECTED_ERROR',
  SERVICE_UNAVAILABLE: 'UNEXPECTED_ERROR',
  SECRET_UNREADABLE: 'UNEXPECTED_ERROR',
  // A run of saved assertions with fail_on_mismatch=true that some failed: the expectation the request states is not met.
  ASSERTIONS_FAILED: 'INVALID_INPUT',
} as const;

/** Our codes that are not Permit's, as the error document lists them in `reason`. */
export const PERMIT_FINER_CODES = Object.keys(PERMIT_CODE_OF) as Array<keyof typeof PERMIT_CODE_OF>;

/** The `error_code` (always a member of Permit's enum) and, where ours is finer, `reason` (ours). */
export function errorCodes(code: string): { error_code: string; reason?: string } {
  if (PERMIT_ERROR_CODES.has(code)) return { error_code: code };
  return { error_code: (PERMIT_CODE_OF as Record<string, string>)[code] ?? 'UNEXPECTED_ERROR', reason: code };
}
