/**
 * The console's one way to the service: the public API of the origin that
 * served the page, with the signed-in API key as a bearer token. Every answer
 * keeps the `X-Event-Position` it carried (a write's position, a check's receipt).
 */

export type Query = Record<string, string | number | boolean | Array<string | number> | undefined | null>;

export interface Answer<T> {
  data: T;
  status: number;
  /** `X-Event-Position`, when the answer has one. */
  position: number | null;
}

/** An answer other than 2xx, with the API's message (`message`, or the 422's `detail`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    for (const one of Array.isArray(value) ? value : [value]) params.append(name, String(one));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The message of an error body: `{message}`, or a 422's `{detail: [{loc, msg}]}`. */
export function errorMessage(status: number, body: unknown): { code: string; message: string } {
  if (body && typeof body === 'object') {
    const b = body as { error_code?: unknown; reason?: unknown; message?: unknown; detail?: unknown };
    if (Array.isArray(b.detail)) {
      const parts = (b.detail as Array<{ loc?: unknown[]; msg?: string }>).map((d) => `${(d.loc ?? []).join('.')}: ${d.msg ?? ''}`);
      return { code: 'VALIDATION', message: parts.join('; ') };
    }
    if (typeof b.message === 'string') {
      // `reason` is ours where Permit's enum has no code (e.g. NOT_IMPLEMENTED, sent as UNEXPECTED_ERROR): the finer one reads better.
      const code = typeof b.reason === 'string' ? b.reason : typeof b.error_code === 'string' ? b.error_code : String(status);
      return { code, message: b.message };
    }
  }
  return { code: String(status), message: `HTTP ${status}` };
}

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  /** Another key than the client's (checks need an environment key). */
  key?: string;
  headers?: Record<string, string>;
}

export class Api {
  constructor(
    readonly key: string,
    private readonly base = '',
  ) {}

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<Answer<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${options.key ?? this.key}`, ...options.headers };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}${queryString(options.query)}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: options.signal,
        cache: 'no-store',
      });
    } catch (err) {
      // fetch rejects with a bare "Failed to fetch" when nothing answers: say which service, and that it is down or unreachable.
      if (options.signal?.aborted) throw err;
      const where = this.base || (typeof location === 'undefined' ? 'this address' : location.origin);
      throw new ApiError(0, 'UNREACHABLE', `The service at ${where} cannot be reached (it may be stopped, or the network is down).`);
    }
    const text = await response.text();
    let body: unknown = null;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    if (!response.ok) {
      const { code, message } = errorMessage(response.status, body);
      throw new ApiError(response.status, code, message);
    }
    const position = response.headers.get('x-event-position');
    return { data: body as T, status: response.status, position: position === null ? null : Number(position) };
  }

  async get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
    return (await this.request<T>('GET', path, { query, signal })).data;
  }

  async post<T>(path: string, body: unknown, options: Omit<RequestOptions, 'body'> = {}): Promise<Answer<T>> {
    return this.request<T>('POST', path, { ...options, body });
  }

  async delete(path: string, body?: unknown): Promise<Answer<unknown>> {
    return this.request('DELETE', path, { body });
  }
}

/** A path segment, escaped (keys are `[A-Za-z0-9_-]`, but ids typed by hand may not be). */
export const seg = (value: string): string => encodeURIComponent(value);
