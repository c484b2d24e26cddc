import { z } from 'zod';
import { templateMatcher, templateParameters } from './path-template';
import { nullMeansAbsent } from './null-as-absent';
import { errorSchema, validationErrorSchema } from './responses';
import { DOCUMENTED_AS, INSTANCE_REF_PATTERN, keySchema, MAX_JSON_DEPTH, MAX_JSON_FIELD_BYTES } from './validation';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** An answer an operation gives besides its success and the common errors (e.g. copy's 202 with the task). */
export interface OtherResponse {
  description: string;
  schema: z.ZodType;
}

/** One operation of the API, as a route declares it (see `route`). */
export interface Operation {
  method: HttpMethod;
  /** OpenAPI path, e.g. `/v2/facts/{proj_id}/{env_id}/tenants`. */
  path: string;
  summary: string;
  tag: string;
  body?: z.ZodType;
  query?: z.ZodType;
  /** Success status (default 200). */
  status?: number;
  /** What the success status answers; none for 204. */
  response?: z.ZodType;
  /** The success answer's media type (default `application/json`; `text/event-stream` for the audit streams, whose `response` describes one message). */
  mediaType?: string;
  /** Further answers by status; one given for a common error status replaces it. */
  responses?: Record<number, OtherResponse>;
  /** A POST that only reads (the permission checks): it never conflicts, so no 409. */
  readOnly?: boolean;
  /** Common error statuses it never answers (AuthZEN's operations answer 400 where the others answer 415 and 422). */
  notAnswered?: number[];
}

/** Response components every error status refers to. */
const ERROR = '#/components/schemas/Error';
const VALIDATION_ERROR = '#/components/schemas/ValidationError';

/**
 * The errors an operation may answer, and when: 409 only for writes, every
 * other one for any operation (a key is needed everywhere; any request may
 * name an object or a path that does not exist, or carry a body).
 */
const COMMON_ERRORS: Record<number, { description: string; writesOnly?: true; headers?: Record<string, unknown> }> = {
  400: {
    description:
      'INVALID_INPUT (MISMATCH_RESOURCE_INSTANCES_TENANTS, MISMATCH_RELATION_TYPE where narrower): a rule the request breaks against the current state (e.g. a tuple across tenants), a bad percent-escape in the path, a body that does not decode, or an `X-Min-Event-Position` beyond the log’s head (`additional_info.head`)',
  },
  401: { description: 'UNAUTHORIZED: no API key, or not a valid one' },
  403: { description: 'FORBIDDEN_ACCESS: the key has no access to this project or environment, or is too narrow for this operation' },
  404: { description: 'NOT_FOUND: an object the request names does not exist (the message names it)' },
  405: {
    description: 'METHOD_NOT_ALLOWED: the path is asked with a method it does not take; `Allow` lists those it takes',
    headers: { Allow: { required: true, schema: { type: 'string' }, description: 'The methods the path takes, e.g. `GET, HEAD, POST`' } },
  },
  409: {
    description:
      'DUPLICATE_ENTITY: an object with that key exists; CONCURRENT_OPERATION_DISALLOWED: concurrent writes did not settle, or a task was taken over or is finished (retry); INVALID_INPUT with reason ASSERTIONS_FAILED: a run of saved assertions with `fail_on_mismatch=true` had a failure (the report in `additional_info.report`)',
    writesOnly: true,
  },
  413: { description: 'PAYLOAD_TOO_LARGE: the body is over MAX_BODY_BYTES (or one event over the log’s limit)' },
  431: { description: 'REQUEST_HEADER_FIELDS_TOO_LARGE: the URL or the headers are over 16 KiB (refused before the API reads them)' },
  415: {
    description: 'UNSUPPORTED_MEDIA_TYPE: a body that is not JSON, not UTF-8, or in an unknown Content-Encoding',
  },
  422: { description: 'The body, query or a header the API reads is invalid: {detail: [{loc, msg, type}]}' },
  424: {
    description:
      'SYNC_TIMEOUT: with `X-Timeout-Policy: fail`, the read models did not reach the write (or `X-Min-Event-Position`) within `X-Wait-Timeout` (the write itself is stored)',
  },
  429: {
    description: 'Too many requests: retry after `Retry-After` seconds',
    headers: { 'Retry-After': { required: true, schema: { type: 'integer', minimum: 0 }, description: 'Seconds to wait before retrying' } },
  },
  500: {
    description:
      'UNEXPECTED_ERROR: a bug (the id is in the server log with the stack), or, with reason SECRET_UNREADABLE, a stored secret this service cannot open (sealed with a key it does not have: SECRETS_KEY)',
  },
  503: {
    description:
      'SERVICE_UNAVAILABLE: a store did not answer in time, or the read models did not reach the position a write or `X-Min-Event-Position` needs within READ_YOUR_WRITES_TIMEOUT_MS (or a longer `X-Wait-Timeout`; the write itself is stored), or the event log cannot take writes (down, restarting or read-only; nothing was written). Retry after `Retry-After` seconds',
    headers: { 'Retry-After': { schema: { type: 'integer', minimum: 0 }, description: 'Seconds to wait before retrying' } },
  },
};

/** The statuses the common errors may be declared with: every operation declares those that apply to it. */
export const ERROR_STATUSES = Object.keys(COMMON_ERRORS).map(Number);
export const errorStatusesOf = (op: Operation): number[] =>
  ERROR_STATUSES.filter((status) => (!COMMON_ERRORS[status]!.writesOnly || writes(op)) && !op.notAnswered?.includes(status));

/** Identifiers in paths: an object's key or its id (a UUID, which the key pattern also matches). */
const keyOrId = { description: "The object's key or its id", schema: jsonSchemaOf(keySchema, 'input') };
const PATH_PARAMETERS: Record<string, { description: string; schema: JsonSchema }> = {
  proj_id: keyOrId,
  env_id: keyOrId,
  resource_id: keyOrId,
  role_id: keyOrId,
  relation_id: keyOrId,
  tenant_id: keyOrId,
  instance_id: { description: '`type:key` of the instance, or its id', schema: { type: 'string', pattern: INSTANCE_REF_PATTERN } },
  user_id: { description: "The user's key (any string) or its id", schema: { type: 'string', minLength: 1 } },
  task_id: { description: 'The id the copy request answered with', schema: { type: 'string', minLength: 1 } },
};

type JsonSchema = Record<string, unknown>;

/**
 * How a schema is rendered: a request body (its optional members also take `null`, which means
 * absent: null-as-absent.ts), a query (parsed as input) or an answer (output).
 */
type Rendering = 'body' | 'input' | 'output';

/** A zod schema as JSON Schema, with schemas carrying a meta `id` left as `$defs` references. */
function jsonSchemaOf(schema: z.ZodType, rendering: Rendering): JsonSchema {
  const { $schema: _draft, ...rest } = z.toJSONSchema(schema, {
    io: rendering === 'output' ? 'output' : 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: ({ zodSchema, jsonSchema }) => {
      documentedAs(jsonSchema);
      if (rendering === 'body') nullableOptionals(zodSchema as unknown as z.ZodType, jsonSchema);
    },
  }) as JsonSchema;
  return rest;
}

/** An object's optional members documented as also taking `null` (where the body parser drops it as absent). */
function nullableOptionals(zodSchema: z.ZodType, rendered: JsonSchema): void {
  if (zodSchema.def.type !== 'object') return;
  const shape = (zodSchema.def as unknown as z.core.$ZodObjectDef).shape;
  const properties = rendered.properties as Record<string, JsonSchema> | undefined;
  for (const [name, property] of Object.entries(properties ?? {})) {
    const member = shape[name] as z.ZodType | undefined;
    if (member && nullMeansAbsent(member)) properties![name] = { anyOf: [property, { type: 'null' }] };
  }
}

/** A schema whose meta says how it is documented (`DOCUMENTED_AS`) is rendered so, its description kept. */
function documentedAs(rendered: JsonSchema): void {
  const documented = rendered[DOCUMENTED_AS] as JsonSchema | undefined;
  if (!documented) return;
  const { description } = rendered;
  for (const key of Object.keys(rendered)) delete rendered[key];
  Object.assign(rendered, documented, description === undefined ? {} : { description });
}

/**
 * Collects the operations the routes declare (with the same zod schemas they
 * parse with and answer with) and renders an OpenAPI 3.1 document from them,
 * so the document cannot drift from what the server validates and sends. It
 * also answers which methods a request path has, for requests no route took.
 */
export class ApiRegistry {
  private readonly operations: Array<{ operation: Operation; matches: (path: string) => boolean; alias?: true }> = [];
  private rendered: Record<string, unknown> | undefined;

  /** Adds an operation; the same method on the same path twice is a programming error. */
  add(operation: Operation): void {
    if (this.operations.some(({ operation: o }) => o.method === operation.method && o.path === operation.path)) {
      throw new Error(`${operation.method.toUpperCase()} ${operation.path} is declared twice`);
    }
    this.operations.push({ operation, matches: templateMatcher(operation.path) });
    this.rendered = undefined;
  }

  /**
   * Declares again, under `to`, every operation declared so far under `from` (a path prefix), as
   * another path to the same handlers: the PDP's `/facts/…` for `/v2/facts/{proj_id}/{env_id}/…`.
   * `note` is added to each summary. The aliases are documented and routed like any operation, but
   * `declared()` leaves them out: it lists what the routes declare.
   */
  alias(from: string, to: string, note: string): void {
    for (const { operation } of [...this.operations]) {
      if (!operation.path.startsWith(`${from}/`)) continue;
      const path = `${to}${operation.path.slice(from.length)}`;
      this.add({ ...operation, path, summary: `${operation.summary} ${note}` });
      this.operations[this.operations.length - 1]!.alias = true;
    }
  }

  /** Every operation the routes declared (method and path template), in declaration order; aliases left out. */
  declared(): Array<Pick<Operation, 'method' | 'path'>> {
    return this.operations.filter(({ alias }) => !alias).map(({ operation: { method, path } }) => ({ method, path }));
  }

  /**
   * Whether a request path belongs to a template more literal than `template` that also matches it
   * (`/resource_instances/detailed` over `/resource_instances/{instance_id}`), as a predicate built
   * once: a template no other can shadow (most of them) costs its requests nothing.
   */
  moreLiteralThan(template: string): (requestPath: string) => boolean {
    const own = template.split('/');
    const rivals = new Map<string, (path: string) => boolean>();
    for (const { operation, matches } of this.operations) {
      const theirs = operation.path.split('/');
      const overlaps =
        theirs.length === own.length &&
        theirs.every((segment, i) => segment.startsWith('{') || own[i]!.startsWith('{') || segment === own[i]);
      if (overlaps && specificity(operation.path) > specificity(template)) rivals.set(operation.path, matches);
    }
    const matchers = [...rivals.values()];
    return matchers.length === 0 ? () => false : (path) => matchers.some((matches) => matches(path));
  }

  /** The declared operation that answers a request (the most literal template, as express prefers none). */
  operationFor(method: HttpMethod, requestPath: string): Operation | undefined {
    const candidates = this.operations.filter(({ operation, matches }) => operation.method === method && matches(requestPath));
    // The same notion of "most literal" as `methodsAt`, so a request's operation and its `Allow` agree.
    return candidates.map(({ operation }) => operation).sort((a, b) => specificity(b.path).localeCompare(specificity(a.path)))[0];
  }

  /**
   * The methods declared on the most specific templates a request path matches (a literal segment
   * beats a parameter, left to right: `/v2/api-key/scope` is not also `/v2/api-key/{api_key_id}`);
   * empty when it matches none.
   */
  methodsAt(requestPath: string): HttpMethod[] {
    const matching = this.operations.filter(({ matches }) => matches(requestPath)).map(({ operation }) => operation);
    const best = matching.reduce<string | null>(
      (top, op) => (top === null || specificity(op.path) > top ? specificity(op.path) : top),
      null,
    );
    return [...new Set(matching.filter((op) => specificity(op.path) === best).map((op) => op.method))];
  }

  /**
   * The template of a declared operation that a request path matches, one with
   * the request's method first (`method` in any case); undefined when none
   * matches. For naming requests that no route handler took (refused before it).
   */
  templateAt(requestPath: string, method: string): string | undefined {
    let other: string | undefined;
    for (const { operation, matches } of this.operations) {
      if (!matches(requestPath)) continue;
      if (operation.method === method.toLowerCase()) return operation.path;
      other ??= operation.path;
    }
    return other;
  }

  /** The OpenAPI document (rendered once per set of operations). */
  document(): Record<string, unknown> {
    return (this.rendered ??= this.render());
  }

  private render(): Record<string, unknown> {
    const components = new Components();
    components.inline(errorSchema, 'output');
    components.inline(validationErrorSchema, 'output');
    const paths: Record<string, Record<string, unknown>> = {};
    for (const { operation: op } of this.operations) {
      (paths[op.path] ??= {})[op.method] = this.renderOperation(op, components);
    }
    return {
      openapi: '3.1.0',
      info: {
        title: 'ReBAC policy service',
        version: '2',
        description: [
          'Permit.io v2-compatible authorization policy API, event-sourced.',
          '',
          'Request bodies are JSON in UTF-8. No string in a body (value or object key) may hold NUL (\\u0000) or a lone UTF-16',
          `surrogate (422 naming the field). Free-form JSON fields (attributes, context, settings, jwks) are at most ${MAX_JSON_DEPTH}`,
          `levels deep and ${MAX_JSON_FIELD_BYTES} bytes of JSON each. Every path identifier accepts the object's key or its id.`,
          'Writes answer with `X-Event-Position`; any request may send `X-Min-Event-Position` to be served at least that fresh',
          '(a whole number; beyond the log’s head: 400 at once). Permit’s PDP headers `X-Wait-Timeout` (seconds a write or',
          '`X-Min-Event-Position` waits for the read models; empty or negative: no bound) and `X-Timeout-Policy` (`ignore`, the',
          'default, or `fail`: 424 after the wait) bound that wait on any request. Headers, not parameters of each operation:',
          'HTTP carries headers a server does not read, so no operation refuses an unknown one.',
        ].join('\n'),
      },
      components: { schemas: components.schemas, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
      paths,
    };
  }

  private renderOperation(op: Operation, components: Components): Record<string, unknown> {
    const parameters: JsonSchema[] = templateParameters(op.path).map((name) => ({
      name,
      in: 'path',
      required: true,
      ...(PATH_PARAMETERS[name] ?? { schema: { type: 'string', minLength: 1 } }),
    }));
    if (op.query) {
      const schema = components.inline(op.query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        const { description, ...rest } = property;
        parameters.push({
          name,
          in: 'query',
          required: schema.required?.includes(name) ?? false,
          ...(description ? { description } : {}),
          schema: rest,
        });
      }
    }
    const success = op.status ?? 200;
    const responses: Record<string, unknown> = {};
    responses[String(success)] = op.response
      ? {
          description: op.summary,
          ...(writes(op) ? { headers: POSITION_HEADERS } : {}),
          content: { [op.mediaType ?? 'application/json']: { schema: components.inline(op.response, 'output') } },
        }
      : { description: op.summary, ...(writes(op) ? { headers: POSITION_HEADERS } : {}) };
    for (const [status, other] of Object.entries(op.responses ?? {})) {
      responses[status] = {
        description: other.description,
        content: { 'application/json': { schema: components.inline(other.schema, 'output') } },
      };
    }
    for (const status of errorStatusesOf(op)) {
      if (responses[status]) continue;
      const { description, headers } = COMMON_ERRORS[status]!;
      responses[status] = {
        description,
        ...(headers ? { headers } : {}),
        content: { 'application/json': { schema: { $ref: status === 422 ? VALIDATION_ERROR : ERROR } } },
      };
    }
    return {
      operationId: operationId(op),
      summary: op.summary,
      tags: [op.tag],
      parameters,
      ...(op.body
        ? {
            requestBody: {
              // A body schema that takes none (`.optional()`) may be left out.
              required: !op.body.safeParse(undefined).success,
              content: { 'application/json': { schema: components.inline(op.body, 'body') } },
            },
          }
        : {}),
      responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))),
    };
  }
}

function writes(op: Operation): boolean {
  return op.method !== 'get' && !op.readOnly;
}

const POSITION_HEADERS = {
  'X-Event-Position': {
    required: false,
    schema: { type: 'integer', minimum: 1 },
    description: 'The global log position of the write; send it back as `X-Min-Event-Position` to read at least this fresh',
  },
};

/** `get /v2/facts/{proj_id}/{env_id}/tenants/{tenant_id}` → `get_v2_facts_tenants_tenant_id`: unique, stable, readable. */
function operationId(op: Operation): string {
  const parts = op.path
    .replace(/^\/v2\/(schema|facts)\/\{proj_id\}\/\{env_id\}/, '/v2/$1')
    .split('/')
    .filter((part) => part !== '')
    .map((part) => part.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_'));
  return [op.method, ...parts].join('_');
}

/**
 * The document's `components/schemas`: every schema with a meta `id` is
 * rendered there once and referenced with `$ref`. The same id rendered two
 * ways (e.g. as a request and as a response, where defaults differ) is a
 * programming error.
 */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};

  /** The schema as JSON Schema, with the schemas that have an id (itself too) moved here and referenced. */
  inline(schema: z.ZodType, rendering: Rendering): JsonSchema {
    return this.hoist(jsonSchemaOf(schema, rendering));
  }

  private hoist(schema: JsonSchema): JsonSchema {
    const { $defs, ...rest } = schema as JsonSchema & { $defs?: Record<string, JsonSchema> };
    for (const [id, definition] of Object.entries($defs ?? {})) this.put(id, rewriteRefs(definition) as JsonSchema);
    return rewriteRefs(rest) as JsonSchema;
  }

  private put(id: string, schema: JsonSchema): void {
    const existing = this.schemas[id];
    if (existing && JSON.stringify(existing) !== JSON.stringify(schema)) {
      throw new Error(`The schema '${id}' renders differently in two places; give the variants their own ids`);
    }
    this.schemas[id] = schema;
  }
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = key === '$ref' && typeof item === 'string' ? item.replace(/^#\/\$defs\//, '#/components/schemas/') : rewriteRefs(item);
  }
  return out;
}

/** Per segment, 1 for a literal and 0 for a parameter: compared as strings, the more specific template is the greater. */
function specificity(template: string): string {
  return template
    .split('/')
    .map((segment) => (segment.startsWith('{') ? '0' : '1'))
    .join('');
}
