import { z } from 'zod';
import { templateMatcher, templateParameters } from './path-template';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** One operation of the API, as a route declares it (see `route`). */
export interface Operation {
  method: HttpMethod;
  /** OpenAPI path, e.g. `/v2/facts/{proj_id}/{env_id}/tenants`. */
  path: string;
  summary: string;
  tag: string;
  body?: z.ZodType;
  query?: z.ZodType;
  /** Success status and what it returns. */
  status?: number;
  response?: string;
}

/**
 * Collects the operations the routes declare (with the same zod schemas they
 * parse with) and renders an OpenAPI 3.1 document from them, so the document
 * cannot drift from what the server validates. It also answers which methods
 * a request path has, for requests no route took.
 */
export class ApiRegistry {
  private readonly operations: Array<{ operation: Operation; matches: (path: string) => boolean }> = [];

  /** Adds an operation; the same method on the same path twice is a programming error. */
  add(operation: Operation): void {
    if (this.operations.some(({ operation: o }) => o.method === operation.method && o.path === operation.path)) {
      throw new Error(`${operation.method.toUpperCase()} ${operation.path} is declared twice`);
    }
    this.operations.push({ operation, matches: templateMatcher(operation.path) });
  }

  /** Every declared operation (method and path template), in declaration order. */
  declared(): Array<Pick<Operation, 'method' | 'path'>> {
    return this.operations.map(({ operation: { method, path } }) => ({ method, path }));
  }

  /** The methods declared on the templates a request path matches; empty when it matches none. */
  methodsAt(requestPath: string): HttpMethod[] {
    const methods = this.operations.filter(({ matches }) => matches(requestPath)).map(({ operation }) => operation.method);
    return [...new Set(methods)];
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

  document(): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const { operation: op } of this.operations) {
      const parameters = templateParameters(op.path).map((name) => ({
        name,
        in: 'path',
        required: true,
        schema: { type: 'string' },
      }));
      if (op.query) {
        const schema = z.toJSONSchema(op.query, { io: 'input', unrepresentable: 'any' }) as {
          properties?: Record<string, unknown>;
          required?: string[];
        };
        for (const [name, property] of Object.entries(schema.properties ?? {})) {
          parameters.push({ name, in: 'query', required: schema.required?.includes(name) ?? false, schema: property as { type: string } });
        }
      }
      const status = String(op.status ?? 200);
      (paths[op.path] ??= {})[op.method] = {
        summary: op.summary,
        tags: [op.tag],
        parameters,
        ...(op.body
          ? {
              requestBody: {
                required: true,
                content: { 'application/json': { schema: z.toJSONSchema(op.body, { io: 'input', unrepresentable: 'any' }) } },
              },
            }
          : {}),
        responses: {
          [status]: { description: op.response ?? 'OK' },
          '401': { description: 'Missing or invalid API key' },
          '403': { description: 'The key has no access to this project or environment' },
          '404': { description: 'A referenced object does not exist' },
          '422': { description: 'Invalid body or query: {detail: [{loc, msg, type}]}' },
        },
      };
    }
    return {
      openapi: '3.1.0',
      info: {
        title: 'ReBAC policy service',
        version: '2',
        description: 'Permit.io v2-compatible authorization policy API, event-sourced.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
      paths,
    };
  }
}
