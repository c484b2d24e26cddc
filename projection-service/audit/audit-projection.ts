import type { DocumentStore } from '../../shared/docstore/port';
import type { DomainEvent, EventMetadata, RecordedEvent, RecordedOf } from '../../shared/events';
import { dispatch, eventTypes, isDomainEvent, isEventOf, streamKinds, streams } from '../../shared/events';
import {
  AuditCollections,
  auditActorOf,
  auditMetadataTerms,
  auditTerm,
  ENTRIES_PER_BLOCK,
  decodeBlock,
  encodeBlock,
  entryBounds,
  entryId,
  runId,
  runPrefix,
  scopeCode,
  type AuditDimension,
  type AuditEntry,
} from '../../shared/read-models/audit-log';
import type { Projection } from '../../shared/read-models/projection';
import { envAuditRefs, orgAuditRefs, taskAuditRefs, type AuditRefs } from './refs';

/** A run of the scope's events that all carry one term, as far as it goes. */
interface Run {
  id: string;
  end: number;
}

/** What the projection remembers of a scope between events: enough to extend the runs of the scope's last event. */
interface ScopeState {
  code: string;
  /** Position of the scope's last event indexed (0: none). */
  lastPosition: number;
  logTime: number;
  /** The runs the last event belongs to, by term; null after a reload, when only the store knows them. */
  open: Map<string, Run> | null;
  /** The block the scope's entries go to (null: the next starts one). */
  block: Block | null;
}

/** Entries of a block, from its first. */
interface Block {
  id: string;
  entries: AuditEntry[];
}

/** Scopes (and copy tasks) whose state is kept in memory; others are read back from the index when they come again. */
const CACHED_SCOPES = 10_000;

/**
 * The audit-log index (shared/read-models/audit-log.ts): every event, in every
 * scope it belongs to, as an entry and as an extension of the runs of its terms.
 *
 * Runs and entry blocks are written once per batch (at its last event, which
 * `prepare` points out), so a run that 5,000 events of one request extend is
 * one write, and their entries one per ENTRIES_PER_BLOCK. Idempotent under redelivery: a scope's state is read back from the
 * index when an event comes at or before its last indexed position (a replay
 * after a crash, on an engine without transactions), and replaying the same
 * events in order rebuilds the same runs.
 */
export function auditLogProjection(store: DocumentStore): Projection {
  return new AuditLogProjection(new AuditCollections(store));
}

class AuditLogProjection implements Projection {
  readonly name = 'audit-log';
  /** Every event: the log has no change an auditor may not see. */
  readonly handles: ReadonlySet<DomainEvent['type']> = new Set(streamKinds.flatMap((kind) => eventTypes[kind]));

  private readonly scopes = new Map<string, ScopeState>();
  private readonly taskScopes = new Map<string, string[]>();
  private readonly dirtyBlocks = new Map<string, { code: string; block: Block }>();
  private readonly dirtyRuns = new Map<string, Run>();
  /** Position of the batch's last event, where the buffered writes go out; null: after each event. */
  private batchEnd: number | null = null;
  private highest = 0;
  private readonly metadataTerms = new MetadataTerms();

  constructor(private readonly c: AuditCollections) {}

  async prepare(batch: RecordedEvent[]): Promise<void> {
    // What a failed batch left buffered was rolled back with it (or will be replayed).
    this.dirtyBlocks.clear();
    this.dirtyRuns.clear();
    this.batchEnd = batch.filter((event) => isDomainEvent(event)).at(-1)?.position ?? null;
    if (batch.length > 0 && batch[0]!.position <= this.highest) this.scopes.clear();
  }

  async apply(event: RecordedOf<DomainEvent>): Promise<void> {
    const scopes = await this.scopesOf(event);
    if (scopes.length > 0) {
      const terms = termsOf(event, this.metadataTerms.of(event.metadata));
      const time = Date.parse(event.metadata.timestamp);
      for (const [index, scope] of scopes.entries()) await this.index(scope, index, event, terms, time);
    }
    this.highest = Math.max(this.highest, event.position);
    if (this.batchEnd === null || event.position >= this.batchEnd) {
      await this.flush();
      this.batchEnd = null;
    }
  }

  private async index(scope: string, index: number, event: RecordedEvent, terms: string[], time: number): Promise<void> {
    const position = event.position;
    let state = this.scopes.get(scope);
    if (!state || position <= state.lastPosition) state = await this.load(scope, index, position);
    remember(this.scopes, scope, state);
    const logTime = Number.isFinite(time) ? Math.max(state.logTime, time) : state.logTime;
    if (!state.block || state.block.entries.length >= ENTRIES_PER_BLOCK) state.block = { id: entryId(state.code, position), entries: [] };
    state.block.entries.push({
      position,
      v: event.streamVersion,
      ...(event.streamId === scope ? {} : { s: event.streamId }),
      t: logTime,
    });
    this.dirtyBlocks.set(state.block.id, { code: state.code, block: state.block });
    const open = new Map<string, Run>();
    for (const term of terms) {
      const run = (state.open ? state.open.get(term) : await this.storedRunThrough(state, term)) ?? {
        id: runId(state.code, term, position),
        end: position,
      };
      run.end = position;
      open.set(term, run);
      this.dirtyRuns.set(run.id, run);
    }
    state.open = open;
    state.lastPosition = position;
    state.logTime = logTime;
  }

  /** A scope's state before `position`, from the index (a scope seen for the first time gets its code). */
  private async load(scope: string, index: number, position: number): Promise<ScopeState> {
    await this.flush();
    const stored = await this.c.scopes.get(scope);
    if (!stored) {
      const code = index === 0 ? scopeCode(position) : `${scopeCode(position)}-${index}`;
      await this.c.scopes.put({ id: scope, code });
      return { code, lastPosition: 0, logTime: 0, open: new Map(), block: null };
    }
    // The block before `position` goes on from its entries before it (a replay drops the others, and writes them again).
    const [previous] = await this.c.entries.find(
      { id: { $gt: entryBounds(stored.code).low, $lt: entryId(stored.code, position) } },
      { sortBy: 'id', descending: true, limit: 1 },
    );
    if (!previous) return { code: stored.code, lastPosition: 0, logTime: 0, open: new Map(), block: null };
    const entries = decodeBlock(previous).filter((entry) => entry.position < position);
    const last = entries.at(-1)!;
    return { code: stored.code, lastPosition: last.position, logTime: last.t, open: null, block: { id: previous.id, entries } };
  }

  /** The stored run of `term` that holds the scope's last event, if any (after a reload). */
  private async storedRunThrough(state: ScopeState, term: string): Promise<Run | undefined> {
    const prefix = runPrefix(state.code, term);
    const [run] = await this.c.runs.find(
      { id: { $gt: prefix, $lte: runId(state.code, term, state.lastPosition) } },
      { sortBy: 'id', descending: true, limit: 1 },
    );
    return run && run.e >= state.lastPosition ? { id: run.id, end: run.e } : undefined;
  }

  private async flush(): Promise<void> {
    if (this.dirtyBlocks.size > 0) {
      const blocks = [...this.dirtyBlocks.values()].map(({ code, block }) => encodeBlock(code, block.entries));
      this.dirtyBlocks.clear();
      await this.c.entries.putMany(blocks);
    }
    if (this.dirtyRuns.size > 0) {
      const runs = [...this.dirtyRuns.values()].map((run) => ({ id: run.id, e: run.end }));
      this.dirtyRuns.clear();
      await this.c.runs.putMany(runs);
    }
  }

  /**
   * The logs an event belongs to: its environment's or organisation's; a copy
   * task's events belong to the logs of the environments it reads and writes.
   */
  private async scopesOf(event: RecordedOf<DomainEvent>): Promise<string[]> {
    if (!isEventOf('task', event)) return [event.streamId];
    const taskId = event.data.taskId;
    if (event.type === 'EnvironmentCopyRequested') {
      const { source, target } = event.data;
      const ids = new Set([source.environmentId, target.environmentId].filter((id): id is string => id !== null));
      const scopes = [...ids].map((id) => streams.environment(id));
      await this.c.tasks.put({ id: taskId, scopes });
      remember(this.taskScopes, taskId, scopes);
      return scopes;
    }
    let scopes = this.taskScopes.get(taskId);
    if (!scopes) {
      scopes = (await this.c.tasks.get(taskId))?.scopes ?? [];
      remember(this.taskScopes, taskId, scopes);
    }
    return scopes;
  }
}

/** Most-recently-used first out: a bounded map. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > CACHED_SCOPES) map.delete(map.keys().next().value!);
}

const refDimensions = ['user', 'resource_instance', 'resource', 'role', 'relation', 'tenant'] as const satisfies AuditDimension[];

/** Every filter term an event answers to, once each. */
export function termsOf(event: RecordedOf<DomainEvent>, metadataTerms = termsOfMetadata(event.metadata)): string[] {
  const terms = new Set([auditTerm('type', event.type), ...metadataTerms]);
  const refs = refsOf(event);
  for (const dimension of refDimensions) for (const value of refs[dimension] ?? []) terms.add(auditTerm(dimension, value));
  return [...terms];
}

/** The terms of who made an event and in which request: the same for all the events of a request. */
function termsOfMetadata(metadata: EventMetadata): string[] {
  const actor = auditActorOf(metadata);
  const terms = [auditTerm('actor_type', actor.type)];
  if (actor.id !== null) terms.push(auditTerm('actor_id', actor.id));
  if (metadata.requestId) terms.push(auditTerm('request_id', metadata.requestId));
  if (metadata.correlationId) terms.push(auditTerm('correlation_id', metadata.correlationId));
  terms.push(...auditMetadataTerms(metadata.auditMetadata));
  return terms;
}

/** termsOfMetadata of the last request seen again (a bulk write's events come one after another). */
class MetadataTerms {
  private last: { metadata: EventMetadata; terms: string[] } | null = null;

  of(metadata: EventMetadata): string[] {
    const last = this.last;
    if (
      last &&
      last.metadata.requestId === metadata.requestId &&
      last.metadata.actor === metadata.actor &&
      last.metadata.correlationId === metadata.correlationId &&
      last.metadata.auditMetadata === undefined &&
      metadata.auditMetadata === undefined
    ) {
      return last.terms;
    }
    const terms = termsOfMetadata(metadata);
    this.last = { metadata, terms };
    return terms;
  }
}

function refsOf(event: RecordedOf<DomainEvent>): AuditRefs {
  if (isEventOf('env', event)) return dispatch(envAuditRefs, event.type, undefined, event) ?? {};
  if (isEventOf('org', event)) return dispatch(orgAuditRefs, event.type, undefined, event) ?? {};
  if (isEventOf('task', event)) return dispatch(taskAuditRefs, event.type, undefined, event) ?? {};
  return {};
}
