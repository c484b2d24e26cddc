import type { IncomingMessage } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { ValidationError } from '../../shared/errors';
import { findUnfaithfulStrings } from './json-body';
import { jsonDepth, MAX_JSON_DEPTH } from './validation';

/** The request header a write may carry: what the writer says about the change, stored with its events. */
export const AUDIT_METADATA_HEADER = 'X-Audit-Metadata';
/** Largest X-Audit-Metadata, in bytes of the header's value (every event of the write carries it). */
export const MAX_AUDIT_METADATA_BYTES = 4096;

const loc = ['header', AUDIT_METADATA_HEADER.toLowerCase()];
const refuse = (msg: string, type: string): never => {
  throw new ValidationError([{ loc, msg, type }]);
};

/**
 * The write's `X-Audit-Metadata` (a JSON object of at most 4 KiB, nested at
 * most MAX_JSON_DEPTH levels, strings as faithful as a body's), or undefined
 * without the header; a 422 naming the header otherwise. Header bytes beyond
 * ASCII are read as UTF-8 (Node hands them over as Latin-1).
 */
export function auditMetadataOf(req: Pick<IncomingMessage, 'headers'>): Record<string, unknown> | undefined {
  const raw = req.headers[AUDIT_METADATA_HEADER.toLowerCase()];
  if (raw === undefined) return undefined;
  if (Array.isArray(raw)) return refuse('must be sent once', 'value_error.repeated');
  const bytes = Buffer.from(raw, 'latin1');
  if (bytes.length > MAX_AUDIT_METADATA_BYTES)
    refuse(`must be at most ${MAX_AUDIT_METADATA_BYTES} bytes (it is ${bytes.length})`, 'too_big');
  if (!isUtf8(bytes)) refuse('is not valid UTF-8', 'value_error.unicode');
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return refuse('must be a JSON object', 'value_error.json');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return refuse('must be a JSON object', 'value_error.json');
  if (jsonDepth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) refuse(`must be nested at most ${MAX_JSON_DEPTH} levels deep`, 'too_big');
  const problems: ValidationError['detail'] = [];
  findUnfaithfulStrings(value, loc, problems);
  if (problems.length > 0) throw new ValidationError(problems);
  return value as Record<string, unknown>;
}
