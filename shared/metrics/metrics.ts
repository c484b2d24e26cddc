import {
  AggregatorRegistry,
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type MetricObjectWithValues,
  type MetricValue,
} from 'prom-client';

/** One process's metrics as values (prom-client's JSON form). */
export type MetricsSnapshot = Array<MetricObjectWithValues<MetricValue<string>>>;
import type { AppendObserver } from '../eventstore/port';

/**
 * The Prometheus metrics of one service (`GET /metrics`), on prom-client.
 *
 * Cheap where it is hot: the HTTP, check and copy counters are plain numbers
 * incremented in place (a check costs a field increment, no label hashing, no
 * allocation), copied into the prom-client families only when `/metrics` is
 * scraped; latencies go through prom-client's `observe` on label sets bound
 * once. Gauges that need a store (the log's head, the open tasks) are read at
 * scrape time, never on a request.
 *
 * One instance per service (tests start several in one process); the
 * library's default process metrics (`process_*`, `nodejs_*`) describe the
 * process, so they live in one registry per process and every scrape adds them.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly http: HttpMetrics;
  readonly checks = new CheckMetrics();
  readonly copies = new CopyMetrics();
  /** Creates (`POST` of instances, role assignments, tuples) their fast lanes took (command-service/http/create-lane.ts), by outcome. */
  readonly createLanes = { answered: 0, handedOver: 0 };
  /** Requests a check worker did not answer itself and forwarded to the main process (counted in place, as the others). */
  forwardedRequests = 0;
  /** Decision log entries written, and dropped (a full buffer or a failed write), counted in place (shared/decision-log/recorder.ts). */
  readonly decisionLog = { written: 0, dropped: 0 };
  /** Handed to the event store, which reports each append's latency and each group commit's size. */
  readonly eventStore: AppendObserver;

  private readonly followers = new Map<string, () => number | null>();
  private logHead: (() => Promise<number>) | null = null;
  private openTasks: (() => Promise<number>) | null = null;

  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly decisions: Counter<'endpoint' | 'decision'>;
  private readonly cacheLookups: Counter<'result'>;
  private readonly fastLane: Counter<'outcome'>;
  private readonly createLane: Counter<'outcome'>;
  private readonly forwarded: Counter;
  private readonly decisionLogEntries: Counter<'outcome'>;
  /** Created with their first source: a service that does not follow the log or count tasks shows no such family. */
  private log: { head: Gauge; positions: Gauge<'projection'>; lag: Gauge<'projection'> } | null = null;
  private queueDepth: Gauge | null = null;
  private auditStreams: { open: Gauge; max: Gauge; count: () => number } | null = null;
  private readonly eventsCopied: Counter;
  private readonly copiesRunning: Gauge;

  constructor() {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'rebac_http_requests_total',
      help: 'HTTP requests answered, by route (the OpenAPI path template; "unmatched" when no route took the path), method and status',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    const duration = new Histogram({
      name: 'rebac_http_request_duration_seconds',
      help: 'Time from a request reaching the service to its answer being written, by route, method and status',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.http = new HttpMetrics(duration);
    this.decisions = new Counter({
      name: 'rebac_check_decisions_total',
      help: 'Permission check decisions, by endpoint (/allowed, /allowed/bulk: one per check) and decision (allow, deny)',
      labelNames: ['endpoint', 'decision'],
      registers,
    });
    this.cacheLookups = new Counter({
      name: 'rebac_decision_cache_lookups_total',
      help: 'Decision cache lookups by result (hit, miss); checks sent with Cache-Control: no-cache do not look',
      labelNames: ['result'],
      registers,
    });
    this.fastLane = new Counter({
      name: 'rebac_check_fast_lane_requests_total',
      help: 'POST /allowed requests the fast lane took, by outcome: answered by it, or handed to the express route (another body shape, a refused key, an error)',
      labelNames: ['outcome'],
      registers,
    });
    this.createLane = new Counter({
      name: 'rebac_create_fast_lane_requests_total',
      help: 'Creates (POST resource_instances, role_assignments, relationship_tuples) their fast lane took, by outcome: answered by it, or handed to the express route (another body shape, a refused key, an error)',
      labelNames: ['outcome'],
      registers,
    });
    this.forwarded = new Counter({
      name: 'rebac_http_forwarded_requests_total',
      help: 'Requests a check worker did not answer itself and forwarded to the main process (a request that is not a check, on a connection that began with one)',
      registers,
    });
    this.decisionLogEntries = new Counter({
      name: 'rebac_decision_log_entries_total',
      help: 'Decision log entries by outcome: written to its store, or dropped (the buffer was full, or the write failed)',
      labelNames: ['outcome'],
      registers,
    });
    const appendDuration = new Histogram({
      name: 'rebac_event_store_append_duration_seconds',
      help: 'Time from an append being asked to its answer (durable, or refused), group commit wait included',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    const batchAppends = new Histogram({
      name: 'rebac_event_store_batch_appends',
      help: 'Appends stored by one write to the engine (a SQLite group commit; 1 per append on EventStoreDB)',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
      registers,
    });
    const batchEvents = new Histogram({
      name: 'rebac_event_store_batch_events',
      help: 'Events stored by one write to the engine (a SQLite group commit; one append on EventStoreDB)',
      buckets: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536],
      registers,
    });
    this.eventStore = {
      appended: (seconds) => appendDuration.observe(seconds),
      committed: (appends, events) => {
        batchAppends.observe(appends);
        batchEvents.observe(events);
      },
    };
    this.eventsCopied = new Counter({
      name: 'rebac_copy_events_copied_total',
      help: 'Events written into target environments by environment copies in this process',
      registers,
    });
    this.copiesRunning = new Gauge({ name: 'rebac_copy_tasks_running', help: 'Environment copies running in this process', registers });
  }

  /**
   * Reports a follower of the log (the projection runner, or the checkpoint a
   * separate command service polls): its position, and its lag behind the
   * log's head, at each scrape. `position` returns null while the follower
   * does not run here (a standby).
   */
  followLog(name: string, position: () => number | null): void {
    this.logGauges();
    this.followers.set(name, position);
  }

  /** Where each scrape reads the log's head (for the lag). */
  readLogHead(head: () => Promise<number>): void {
    this.logGauges();
    this.logHead = head;
  }

  /** Where each scrape counts the tasks requested and not finished. */
  countOpenTasks(count: () => Promise<number>): void {
    this.queueDepth ??= new Gauge({
      name: 'rebac_task_queue_depth',
      help: 'Background tasks requested and not finished (the task read model: status processing); NaN when it cannot be read',
      registers: [this.registry],
    });
    this.openTasks = count;
  }

  /**
   * Reports the audit log streams this process serves (read at each scrape) beside their bound,
   * AUDIT_MAX_STREAMS, so an alert can fire before clients get 503s. Summed over the check
   * workers (they serve none); the bound is a setting, the same in each, so not summed.
   */
  countAuditStreams(count: () => number, max: number): void {
    const registers = [this.registry];
    this.auditStreams ??= {
      open: new Gauge({
        name: 'rebac_audit_streams_open',
        help: 'Audit log streams (server-sent events) this process serves now',
        registers,
      }),
      max: new Gauge({
        name: 'rebac_audit_streams_max',
        help: 'Most audit log streams this process serves at once (AUDIT_MAX_STREAMS); one more is a 503',
        aggregator: 'max',
        registers,
      }),
      count,
    };
    this.auditStreams.count = count;
    this.auditStreams.max.set(max);
  }

  private logGauges(): NonNullable<Metrics['log']> {
    const registers = [this.registry];
    return (this.log ??= {
      head: new Gauge({
        name: 'rebac_event_log_head_position',
        help: 'Position of the last event in the log; NaN when it cannot be read',
        registers,
      }),
      positions: new Gauge({
        name: 'rebac_projection_position',
        help: 'Position of the last event the read models reflect (read-models: the projection checkpoint, as this process knows it)',
        labelNames: ['projection'],
        registers,
      }),
      lag: new Gauge({
        name: 'rebac_projection_lag',
        help: "The log's head position minus the read models' position: events behind on SQLite, commit-position units on EventStoreDB",
        labelNames: ['projection'],
        registers,
      }),
    });
  }

  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;

  private peers: (() => Promise<MetricsSnapshot[]>) | null = null;

  /**
   * Other processes of the same service whose metrics a scrape adds to these (the check workers
   * of the one-process service): counters and histograms summed, each default process metric
   * combined as prom-client's cluster aggregation does.
   */
  addPeers(source: () => Promise<MetricsSnapshot[]>): void {
    this.peers = source;
  }

  /** The exposition text: the process's default metrics, then this service's (with its peers', if any). */
  async scrape(): Promise<string> {
    if (this.peers) {
      const all = [await this.snapshot(), ...(await this.peers())];
      return AggregatorRegistry.aggregate(all).metrics();
    }
    await this.refresh();
    return `${await processRegistry().metrics()}\n${await this.registry.metrics()}`;
  }

  /** Every metric of this process, as values (what a peer sends to the process that answers /metrics). */
  async snapshot(): Promise<MetricsSnapshot> {
    await this.refresh();
    return [...(await processRegistry().getMetricsAsJSON()), ...(await this.registry.getMetricsAsJSON())];
  }

  /** Copies the in-place counters into their families and reads the gauges' sources. */
  private async refresh(): Promise<void> {
    this.requests.reset();
    for (const cell of this.http.cells()) this.requests.inc(cell.labels, cell.count);
    this.decisions.reset();
    for (const [endpoint, counts] of this.checks.endpoints()) {
      this.decisions.inc({ endpoint, decision: 'allow' }, counts.allow);
      this.decisions.inc({ endpoint, decision: 'deny' }, counts.deny);
    }
    this.cacheLookups.reset();
    this.cacheLookups.inc({ result: 'hit' }, this.checks.cache.hits);
    this.cacheLookups.inc({ result: 'miss' }, this.checks.cache.misses);
    this.fastLane.reset();
    this.fastLane.inc({ outcome: 'answered' }, this.checks.fastLane.answered);
    this.fastLane.inc({ outcome: 'handed_over' }, this.checks.fastLane.handedOver);
    this.createLane.reset();
    this.createLane.inc({ outcome: 'answered' }, this.createLanes.answered);
    this.createLane.inc({ outcome: 'handed_over' }, this.createLanes.handedOver);
    this.forwarded.reset();
    this.forwarded.inc(this.forwardedRequests);
    this.decisionLogEntries.reset();
    this.decisionLogEntries.inc({ outcome: 'written' }, this.decisionLog.written);
    this.decisionLogEntries.inc({ outcome: 'dropped' }, this.decisionLog.dropped);
    this.eventsCopied.reset();
    this.eventsCopied.inc(this.copies.eventsCopied);
    this.copiesRunning.set(this.copies.running);
    this.auditStreams?.open.set(this.auditStreams.count());

    const [head, openTasks] = await Promise.all([settle(this.logHead), settle(this.openTasks)]);
    if (this.log) {
      const { positions, lag } = this.log;
      positions.reset();
      lag.reset();
      this.log.head.set(head ?? NaN);
      for (const [name, position] of this.followers) {
        const at = position();
        if (at === null) continue;
        positions.set({ projection: name }, at);
        lag.set({ projection: name }, head === null ? NaN : Math.max(0, head - at));
      }
    }
    this.queueDepth?.set(openTasks ?? NaN);
  }
}

/** A source's value, or null when there is none or it fails (the store is down: reported as NaN, never a stale or made-up value). */
async function settle(source: (() => Promise<number>) | null): Promise<number | null> {
  if (!source) return null;
  try {
    return await source();
  } catch {
    return null;
  }
}

let processMetrics: Registry | null = null;
/** The library's default metrics (CPU, memory, event loop lag, GC, handles): one set per process. */
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

/** One route × method × status: its answer count, incremented in place, and its latency histogram's bound label set. */
export interface RequestCell {
  count: number;
  readonly labels: { route: string; method: string; status: string };
  readonly duration: { observe(seconds: number): void };
}

/**
 * HTTP requests by route, method and status. The route is a path template,
 * never a raw path, so the label sets are bounded by the API's routes (times
 * methods and statuses); each is created on first use and kept.
 */
export class HttpMetrics {
  private readonly byRoute = new Map<string, Map<string, Map<number, RequestCell>>>();

  constructor(private readonly duration: Histogram<'route' | 'method' | 'status'>) {}

  /** Counts one answered request; `seconds` from its arrival to its answer. */
  record(route: string, method: string, status: number, seconds: number): void {
    const cell = this.cell(route, method, status);
    cell.count++;
    cell.duration.observe(seconds);
  }

  cell(route: string, method: string, status: number): RequestCell {
    let byMethod = this.byRoute.get(route);
    if (!byMethod) this.byRoute.set(route, (byMethod = new Map<string, Map<number, RequestCell>>()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map<number, RequestCell>()));
    let cell = byStatus.get(status);
    if (!cell) {
      const labels = { route, method, status: String(status) };
      cell = { count: 0, labels, duration: this.duration.labels(labels) };
      byStatus.set(status, cell);
    }
    return cell;
  }

  *cells(): Iterable<RequestCell> {
    for (const byMethod of this.byRoute.values()) for (const byStatus of byMethod.values()) yield* byStatus.values();
  }
}

/** Decisions of one check endpoint, counted in place. */
export interface DecisionCounts {
  allow: number;
  deny: number;
}

/** Check decisions per endpoint, and the decision cache's hits and misses (hit rate: hits / (hits + misses)). */
export class CheckMetrics {
  private readonly byEndpoint = new Map<string, DecisionCounts>();
  readonly cache = { hits: 0, misses: 0 };
  /** `POST /allowed` requests the fast lane took (routes/checks/allowed-fast-lane.ts), by outcome. */
  readonly fastLane = { answered: 0, handedOver: 0 };

  /** The counts of one endpoint, to keep and increment (`counts.allow++`). */
  decisions(endpoint: string): DecisionCounts {
    let counts = this.byEndpoint.get(endpoint);
    if (!counts) this.byEndpoint.set(endpoint, (counts = { allow: 0, deny: 0 }));
    return counts;
  }

  endpoints(): Iterable<[string, DecisionCounts]> {
    return this.byEndpoint.entries();
  }
}

/** Environment copies in this process: events written so far (all copies), copies running now. */
export class CopyMetrics {
  eventsCopied = 0;
  running = 0;
}
