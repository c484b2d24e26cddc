import type { EventStore } from '../../shared/eventstore/port';
import type { RecordedEvent } from '../../shared/events';
import { isDomainEvent } from '../../shared/events';
import { auditActorOf, type AuditActorType, type AuditCollections } from '../../shared/read-models/audit-log';
import type { ReadModels } from '../../shared/read-models/read-models';
import { queryIndex, type IndexMatch } from './index-query';
import { presentEventData, type PresentedData } from './present-event';
import { withFields } from '../../shared/objects';
import { traceIdOf } from '../../shared/tracing/trace-context';

/** One event as the audit log shows it. */
export interface AuditEntry {
  /** Global log position: what `X-Event-Position` and copy's `as_of` name. */
  position: number;
  stream_version: number;
  type: string;
  timestamp: string;
  actor: { type: AuditActorType; id: string | null; name: string | null };
  request_id: string | null;
  correlation_id: string | null;
  causation_id: string | null;
  audit_metadata: Record<string, unknown> | null;
  /** The trace id of the span that wrote the event (its metadata's `traceparent`); absent when it was not traced. */
  trace_id?: string;
  data: PresentedData;
}

export interface AuditPage {
  data: AuditEntry[];
  next_after: number | null;
  head_position: number;
}

/** A page request, filters already turned into terms (see filters.ts). */
export interface AuditPageRequest {
  groups: string[][];
  order: 'asc' | 'desc';
  /** Direction-relative, as the API takes them: the page starts after `after` and stops at `until`. */
  after?: number;
  until?: number;
  timeFrom?: number;
  timeUntil?: number;
  limit: number;
}

/** Index reads one page may make before it ends early (with `next_after` saying where to go on). */
export const PAGE_READ_BUDGET = 2_000;

/**
 * Reads the audit log of a scope: the matching positions from the index, the
 * events themselves from the log (runs of consecutive stream versions in one
 * read), presented in the API's vocabulary with their actor's name.
 */
export class AuditLog {
  constructor(
    private readonly collections: AuditCollections,
    private readonly eventStore: EventStore,
    private readonly readModels: ReadModels,
  ) {}

  /** The scope's page, up to `head` (the read models' position: what the index holds for sure). */
  async page(scope: string, request: AuditPageRequest, head: number): Promise<AuditPage> {
    const asc = request.order === 'asc';
    // Absolute bounds: positions in (low, high].
    const low = asc ? (request.after ?? 0) : Math.max(0, (request.until ?? 1) - 1);
    const high = Math.min(head, asc ? (request.until ?? head) : request.after === undefined ? head : request.after - 1);
    const scopeDoc = await this.collections.scopes.get(scope);
    if (!scopeDoc || high <= low) return { data: [], next_after: null, head_position: head };
    const page = await queryIndex(this.collections, {
      code: scopeDoc.code,
      groups: request.groups,
      order: request.order,
      low,
      high,
      timeFrom: request.timeFrom,
      timeUntil: request.timeUntil,
      limit: request.limit,
      readBudget: PAGE_READ_BUDGET,
    });
    const events = await this.read(scope, page.matches);
    const names = await this.actorNames(events);
    return { data: events.map((event) => presentAuditEntry(event, names)), next_after: page.next, head_position: head };
  }

  /** The matched events from the log, in the matches' order. */
  private async read(scope: string, matches: IndexMatch[]): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    for (let i = 0; i < matches.length;) {
      const stream = matches[i]!.entry.s ?? scope;
      // A run of consecutive versions of one stream (either way) is one read.
      let j = i + 1;
      const step = matches.length > 1 && matches[i + 1] && matches[i + 1]!.entry.v < matches[i]!.entry.v ? -1 : 1;
      while (j < matches.length && (matches[j]!.entry.s ?? scope) === stream && matches[j]!.entry.v === matches[j - 1]!.entry.v + step) j++;
      const versions = matches.slice(i, j).map((m) => m.entry.v);
      const from = Math.min(...versions);
      const read = await this.eventStore.readStream(stream, from, versions.length);
      if (step < 0) read.reverse();
      for (const [k, match] of matches.slice(i, j).entries()) {
        const event = read[k];
        if (!event || event.position !== match.position) {
          throw new Error(`the audit index names ${stream}@${match.entry.v} at position ${match.position}, the log has ${event?.position}`);
        }
        out.push(event);
      }
      i = j;
    }
    return out;
  }

  /** Names of the API keys that made these events (null for a key without one). */
  private async actorNames(events: RecordedEvent[]): Promise<Map<string, string | null>> {
    const ids = new Set(events.map((e) => e.metadata.actor).filter((id): id is string => id !== null));
    const names = new Map<string, string | null>();
    for (const id of ids) names.set(id, (await this.readModels.apiKeys.get(id))?.name || null);
    return names;
  }
}

/** One event as the audit log shows it, its actor named from `names` (key id → name; absent or null: no name). */
export function presentAuditEntry(event: RecordedEvent, names: Map<string, string | null>): AuditEntry {
  const actor = auditActorOf(event.metadata);
  const m = event.metadata;
  const traceId = traceIdOf(m.traceparent);
  return {
    position: event.position,
    stream_version: event.streamVersion,
    type: event.type,
    timestamp: m.timestamp,
    actor: withFields(actor, { name: actor.type === 'api_key' && actor.id !== null ? (names.get(actor.id) ?? null) : null }),
    request_id: m.requestId || null,
    correlation_id: m.correlationId ?? null,
    causation_id: m.causationId ?? null,
    audit_metadata: m.auditMetadata ?? null,
    ...(traceId === null ? {} : { trace_id: traceId }),
    data: isDomainEvent(event) ? presentEventData(event) : {},
  };
}
