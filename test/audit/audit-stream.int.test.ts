import { FACTS, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/**
 * The audit log as server-sent events: live delivery in order, resuming after
 * a dropped connection from Last-Event-ID (or `after`), checkpoints that let a
 * filtered reader advance, key scoping, and the bound on open streams.
 */

interface Message {
  event: string;
  id: string | null;
  data: any;
}

/** A minimal EventSource over fetch: collects messages until closed. */
class SseClient {
  readonly messages: Message[] = [];
  status = 0;
  private readonly abort = new AbortController();
  private readonly done: Promise<void>;
  private ended = false;

  constructor(url: string, key: string, headers: Record<string, string> = {}) {
    this.done = (async () => {
      try {
        const response = await fetch(url, { headers: { authorization: `Bearer ${key}`, ...headers }, signal: this.abort.signal });
        this.status = response.status;
        if (!response.body) return;
        const decoder = new TextDecoder();
        let buffer = '';
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const message: Message = { event: 'message', id: null, data: '' };
            let data = '';
            let fields = 0;
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) continue;
              const colon = line.indexOf(':');
              const [name, value] = colon < 0 ? [line, ''] : [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
              fields++;
              if (name === 'event') message.event = value;
              else if (name === 'id') message.id = value;
              else if (name === 'data') data += data ? `\n${value}` : value;
            }
            if (fields === 0) continue;
            message.data = data ? JSON.parse(data) : null;
            this.messages.push(message);
          }
        }
      } catch (error) {
        if ((error as Error).name !== 'AbortError') throw error;
      } finally {
        this.ended = true;
      }
    })();
  }

  get entries(): any[] {
    return this.messages.filter((m) => m.event === 'message').map((m) => m.data);
  }
  get checkpoints(): Message[] {
    return this.messages.filter((m) => m.event === 'checkpoint');
  }
  get lastId(): string | null {
    return this.messages.at(-1)?.id ?? null;
  }
  get closedByServer(): boolean {
    return this.ended;
  }

  async until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.messages).slice(0, 2000)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.done;
  }
}

const STREAM = '/v2/events/default/production/stream';

let server: TestServer;
let env: ApiClient;
const open: SseClient[] = [];
const stream = (path: string, key = env.key, headers: Record<string, string> = {}) => {
  const client = new SseClient(`${server.url}${path}`, key, headers);
  open.push(client);
  return client;
};

const createUser = async (key: string) => {
  const r = await env.post(`${FACTS}/users`, { key });
  expect(r.status).toBe(200);
  return Number(r.headers.get('x-event-position'));
};

beforeAll(async () => {
  server = await startTestServer({ env: { AUDIT_STREAM_CHECKPOINT_MS: '100', AUDIT_MAX_STREAMS: '3' } });
  env = await server.api.environmentClient();
  await env.post(`${FACTS}/tenants`, { key: 'acme', name: 'Acme' });
});

afterEach(async () => {
  for (const client of open.splice(0)) await client.close();
});

afterAll(async () => {
  await server?.close();
});

describe('the audit log stream', () => {
  it('sends new entries live, in order, each with its position as id, then checkpoints', async () => {
    const live = stream(STREAM);
    await live.until(() => live.checkpoints.length > 0, 'the first checkpoint');
    expect(live.status).toBe(200);
    const written = [await createUser('s1'), await createUser('s2'), await createUser('s3')];
    await live.until(() => live.entries.length === 3, 'three entries');
    expect(live.entries.map((e) => e.position)).toEqual(written);
    expect(live.entries.map((e) => e.data.key)).toEqual(['s1', 's2', 's3']);
    expect(live.messages.filter((m) => m.event === 'message').map((m) => Number(m.id))).toEqual(written);
    // Periodic checkpoints: their id is the position the stream has reached.
    const seen = live.checkpoints.length;
    await live.until(() => live.checkpoints.length >= seen + 2, 'two more checkpoints');
    const last = live.checkpoints.at(-1)!;
    expect(Number(last.id)).toBe(last.data.head_position);
    expect(last.data.head_position).toBeGreaterThanOrEqual(written[2]!);
  });

  it('resumes after a dropped connection from Last-Event-ID, with nothing lost, and from `after`', async () => {
    const first = stream(`${STREAM}?type=UserCreated`);
    await first.until(() => first.checkpoints.length > 0, 'the first checkpoint');
    const before = await createUser('r1');
    await first.until(() => first.entries.length === 1, 'r1');
    const resumeFrom = first.messages.filter((m) => m.event === 'message').at(-1)!.id!;
    expect(Number(resumeFrom)).toBe(before);
    await first.close();
    // Written while nobody listens.
    const missed = [await createUser('r2'), await createUser('r3')];
    const second = stream(`${STREAM}?type=UserCreated`, env.key, { 'last-event-id': resumeFrom });
    await second.until(() => second.entries.length === 2, 'the missed entries');
    expect(second.entries.map((e) => e.position)).toEqual(missed);
    const after = await createUser('r4');
    await second.until(() => second.entries.length === 3, 'r4');
    expect(second.entries.map((e) => e.position)).toEqual([...missed, after]);
    // `after` as a query parameter does the same; the whole history from 0.
    const replay = stream(`${STREAM}?type=UserCreated&after=0`);
    await replay.until(() => replay.checkpoints.length > 0, 'catching up');
    const everything = replay.entries.map((e) => e.data.key);
    expect(everything).toEqual(['s1', 's2', 's3', 'r1', 'r2', 'r3', 'r4']);
  });

  it('lets a filtered reader advance with checkpoints while nothing matches', async () => {
    const filtered = stream(`${STREAM}?user=nobody-at-all`);
    await filtered.until(() => filtered.checkpoints.length > 0, 'a checkpoint');
    const position = await createUser('unrelated');
    await filtered.until(() => filtered.checkpoints.some((c) => c.data.head_position >= position), 'a checkpoint past the write');
    expect(filtered.entries).toEqual([]);
    // Resuming from the checkpoint's id skips what was already examined.
    const resumed = stream(`${STREAM}?type=UserCreated`, env.key, { 'last-event-id': filtered.checkpoints.at(-1)!.id! });
    await resumed.until(() => resumed.checkpoints.length > 0, 'a checkpoint');
    expect(resumed.entries).toEqual([]);
  });

  it('is scoped like the log, refuses a malformed Last-Event-ID, and serves at most AUDIT_MAX_STREAMS at once', async () => {
    expect((await env.get('/v2/events/default/nowhere/stream')).status).toBe(403);
    expect((await env.get('/v2/events/stream?stream=org')).status).toBe(403);
    expect((await env.get(`${STREAM}?usr=x`)).status).toBe(422);
    const bad = await env.get(STREAM, { 'last-event-id': 'yesterday' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['header', 'last-event-id']);

    const org = stream('/v2/events/stream?stream=org&after=0', server.adminKey);
    await org.until(() => org.checkpoints.length > 0, 'the org stream');
    expect(org.entries[0].type).toBe('OrganizationCreated');
    const streams = [stream(STREAM), stream(STREAM)];
    for (const s of streams) await s.until(() => s.checkpoints.length > 0, 'a stream');
    const refused = await env.get(STREAM);
    expect(refused.status).toBe(503);
    expect(refused.body.message).toContain('AUDIT_MAX_STREAMS');
    // The gauge says so before a client meets the 503: all 3 places taken, of 3.
    const scraped = await (await fetch(`${server.url}/metrics`)).text();
    expect(scraped).toMatch(/^rebac_audit_streams_open 3$/m);
    expect(scraped).toMatch(/^rebac_audit_streams_max 3$/m);
    // Closing one frees its place (the server notices the disconnect).
    await streams[0]!.close();
    const deadline = Date.now() + 5000;
    let again: SseClient | null = null;
    while (Date.now() < deadline) {
      again = stream(STREAM);
      await again.until(() => again!.status !== 0, 'an answer');
      if (again.status === 200) break;
      await again.close();
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(again!.status).toBe(200);
    await org.close();
    await again!.close();
    await streams[1]!.close();
    const until = Date.now() + 5000;
    let open = '';
    while (Date.now() < until && open !== '0') {
      open = /^rebac_audit_streams_open (\d+)$/m.exec(await (await fetch(`${server.url}/metrics`)).text())?.[1] ?? '';
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(open).toBe('0');
  });
});

describe('shutting down', () => {
  it('ends open streams instead of waiting for them', async () => {
    const own = await startTestServer();
    const client = new SseClient(`${own.url}${STREAM}`, own.adminKey);
    try {
      await client.until(() => client.checkpoints.length > 0, 'the stream');
      const started = Date.now();
      await own.close();
      // Streams look at the server every second (a keep-alive connection would have held it for its 5 s timeout).
      expect(Date.now() - started).toBeLessThan(3000);
      await client.until(() => client.closedByServer, 'the end of the stream');
    } finally {
      await client.close();
    }
  });
});
