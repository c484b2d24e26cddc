/** A small JSON client for setting up benchmarks (the measured load goes through autocannon). */
export class HttpClient {
  constructor(
    readonly url: string,
    readonly key: string,
  ) {}

  withKey(key: string): HttpClient {
    return new HttpClient(this.url, key);
  }

  get headers(): Record<string, string> {
    return { authorization: `Bearer ${this.key}`, 'content-type': 'application/json' };
  }

  async request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; bytes: number; headers: Headers }> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: this.headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    }).catch((error: unknown) => {
      // fetch says only "fetch failed"; why (refused, reset, closed) is in its cause.
      const cause = (error as { cause?: Error }).cause;
      throw new Error(`${method} ${this.url}${path}: ${String(error)}${cause ? ` (${cause.name}: ${cause.message})` : ''}`);
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text ? JSON.parse(text) : undefined,
      bytes: Buffer.byteLength(text),
      headers: response.headers,
    };
  }

  /** The body of a 2xx answer; anything else throws with the answer. */
  async ok(method: string, path: string, body?: unknown): Promise<any> {
    const r = await this.request(method, path, body);
    if (r.status < 200 || r.status > 299) throw new Error(`${method} ${path} → ${r.status}: ${JSON.stringify(r.body).slice(0, 500)}`);
    return r.body;
  }
}
