/**
 * Server-sent events over `fetch`: `EventSource` cannot send the API key in a
 * header, and the key must not go in a URL (logs, history). The parser is the
 * HTML standard's, minus `retry`; `follow` reconnects with `Last-Event-ID`.
 */

export interface SseMessage {
  event: string;
  id: string | null;
  data: string;
}

export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | null = null;
  private afterCr = false;
  /** The id of the last message dispatched (what to resume after). */
  lastEventId: string | null = null;

  /** Feeds a chunk of the stream; answers the messages it completed. */
  push(chunk: string): SseMessage[] {
    // A \r that ended the previous chunk already ended its line: a \n right after it is the same line end.
    if (this.afterCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.afterCr = chunk.endsWith('\r');
    this.buffer += chunk;
    const out: SseMessage[] = [];
    const lines = this.buffer.split(/\r\n|\r|\n/);
    // The last piece has no line end yet.
    this.buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') {
        if (this.data.length > 0) {
          out.push({ event: this.event || 'message', id: this.id, data: this.data.join('\n') });
          if (this.id !== null) this.lastEventId = this.id;
        }
        this.data = [];
        this.event = '';
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') this.data.push(value);
      else if (field === 'event') this.event = value;
      else if (field === 'id' && !value.includes('\0')) this.id = value;
    }
    return out;
  }
}

export type StreamStatus = 'connecting' | 'live' | 'reconnecting' | 'closed';

export interface FollowOptions {
  key: string;
  /** Start after this id (a position); later reconnects start after the last message seen. */
  lastEventId?: string;
  signal: AbortSignal;
  onMessage: (message: SseMessage) => void;
  onStatus?: (status: StreamStatus, detail?: string) => void;
}

/** Reads the stream until `signal` aborts, reconnecting (1 s doubling to 10 s) after an error or an end. */
export async function follow(url: string, options: FollowOptions): Promise<void> {
  let lastEventId = options.lastEventId ?? null;
  let backoff = 1000;
  while (!options.signal.aborted) {
    options.onStatus?.('connecting');
    try {
      const headers: Record<string, string> = { authorization: `Bearer ${options.key}`, accept: 'text/event-stream' };
      if (lastEventId !== null) headers['last-event-id'] = lastEventId;
      const response = await fetch(url, { headers, signal: options.signal, cache: 'no-store' });
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      options.onStatus?.('live');
      backoff = 1000;
      const parser = new SseParser();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const message of parser.push(value)) options.onMessage(message);
        if (parser.lastEventId !== null) lastEventId = parser.lastEventId;
      }
      options.onStatus?.('reconnecting', 'the stream ended');
    } catch (error) {
      if (options.signal.aborted) break;
      options.onStatus?.('reconnecting', error instanceof Error ? error.message : String(error));
    }
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, backoff);
      options.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve(undefined);
      });
    });
    backoff = Math.min(backoff * 2, 10_000);
  }
  options.onStatus?.('closed');
}
