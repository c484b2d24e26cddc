import { randomBytes } from 'node:crypto';

/**
 * Reads traces back from a Jaeger query API (scripts/jaeger.sh start prints its URL as
 * JAEGER_QUERY_URL), for the tests that assert what the service traced.
 */

/** One span as the tests look at it: its process's service and role, its parent and links. */
export interface TracedSpan {
  traceId: string;
  spanId: string;
  name: string;
  service: string;
  /** The resource's `rebac.process` (main, check-worker, projection-thread, command-service…). */
  role: string | undefined;
  parentId: string | undefined;
  /** Spans this one links to (Jaeger shows OTLP links as FOLLOWS_FROM references). */
  links: Array<{ traceId: string; spanId: string }>;
  attributes: Record<string, unknown>;
}

interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  processID: string;
  references: Array<{ refType: 'CHILD_OF' | 'FOLLOWS_FROM'; traceID: string; spanID: string }>;
  tags: Array<{ key: string; value: unknown }>;
}
interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string; tags?: Array<{ key: string; value: unknown }> }>;
}

/** A fresh W3C `traceparent` of a sampled trace, as a caller that traces would send, and its ids. */
export function callerTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

export class JaegerQuery {
  constructor(readonly url: string) {}

  /** The spans of one trace that Jaeger holds now (none when it does not know the trace yet). */
  async trace(traceId: string): Promise<TracedSpan[]> {
    const response = await fetch(`${this.url}/api/traces/${traceId}`);
    if (response.status === 404) return [];
    if (!response.ok) throw new Error(`jaeger answered ${response.status} for trace ${traceId}`);
    const body = (await response.json()) as { data: JaegerTrace[] };
    return body.data.flatMap(spansOf);
  }

  /** Spans of `service` named `operation` in the last hour, in traces Jaeger finds by that (at most `limit` traces). */
  async search(service: string, operation: string, limit = 200): Promise<TracedSpan[]> {
    const query = new URLSearchParams({ service, operation, limit: String(limit), lookback: '1h' }).toString();
    const response = await fetch(`${this.url}/api/traces?${query}`);
    if (!response.ok) throw new Error(`jaeger answered ${response.status} for ${query}`);
    const body = (await response.json()) as { data: JaegerTrace[] };
    return body.data.flatMap(spansOf).filter((span) => span.service === service && span.name === operation);
  }

  /** Polls a trace until `ready` says it holds what the test waits for (spans arrive in batches, per process). */
  async waitForTrace(traceId: string, ready: (spans: TracedSpan[]) => boolean, timeoutMs = 30_000): Promise<TracedSpan[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const spans = await this.trace(traceId);
      if (ready(spans)) return spans;
      if (Date.now() > deadline) {
        const names = spans.map((s) => `${s.service}:${s.name}`).join(', ');
        throw new Error(`trace ${traceId} not complete within ${timeoutMs} ms; it has: ${names || 'nothing'}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

function spansOf(trace: JaegerTrace): TracedSpan[] {
  return trace.spans.map((span) => {
    const process = trace.processes[span.processID];
    return {
      traceId: span.traceID,
      spanId: span.spanID,
      name: span.operationName,
      service: process?.serviceName ?? '',
      role: process?.tags?.find((tag) => tag.key === 'rebac.process')?.value as string | undefined,
      parentId: span.references.find((ref) => ref.refType === 'CHILD_OF')?.spanID,
      links: span.references.filter((ref) => ref.refType === 'FOLLOWS_FROM').map((ref) => ({ traceId: ref.traceID, spanId: ref.spanID })),
      attributes: Object.fromEntries(span.tags.map((tag) => [tag.key, tag.value])),
    };
  });
}

/** The spans of a trace as a tree, for assertions on who is whose parent. */
export class SpanTree {
  private readonly byId: Map<string, TracedSpan>;

  constructor(readonly spans: TracedSpan[]) {
    this.byId = new Map(spans.map((span) => [span.spanId, span]));
  }

  /** The one span of `service` named `name` (or matching it); fails the test when there is none or several. */
  one(service: string, name: string | RegExp): TracedSpan {
    const found = this.all(service, name);
    if (found.length !== 1) throw new Error(`expected one ${service} span ${name}, found ${found.length}: ${this.describe()}`);
    return found[0]!;
  }

  all(service: string, name: string | RegExp): TracedSpan[] {
    return this.spans.filter((span) => span.service === service && (typeof name === 'string' ? span.name === name : name.test(span.name)));
  }

  has(service: string, name: string | RegExp): boolean {
    return this.all(service, name).length > 0;
  }

  parentOf(span: TracedSpan): TracedSpan | undefined {
    return span.parentId === undefined ? undefined : this.byId.get(span.parentId);
  }

  /** The span's ancestors, nearest first, as far as the trace holds them. */
  ancestorsOf(span: TracedSpan): TracedSpan[] {
    const out: TracedSpan[] = [];
    for (let parent = this.parentOf(span); parent; parent = this.parentOf(parent)) out.push(parent);
    return out;
  }

  describe(): string {
    return this.spans.map((s) => `${s.service}:${s.name}(${s.spanId}<-${s.parentId ?? '-'})`).join(', ');
  }
}
