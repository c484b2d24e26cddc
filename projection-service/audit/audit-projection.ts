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
  decodePostings,
  encodeBlock,
  encodePostings,
  entryBounds,
  entryId,
  postingsId,
  postingsPrefix,
  POSITION_WIDTH,
  RUNS_PER_POSTINGS,
  scopeCode,
  type AuditDimension,
  type AuditEntry,
} from '../../shared/read-models/audit-log';
import type { Projection } from '../../shared/read-models/projection';
import { envAuditRefs, orgAuditRefs, taskAuditRefs, type AuditRefs } from './refs';
import { PrefixFilter } from './prefix-filter';

/** What the projection remembers of a scope between events. */
interface ScopeState {
  id: string;
  code: string;
  /** Position of the scope's last event indexed (0: none). */
  lastPosition: number;
  logTime: number;
  /** The block the scope's entries go to (null: the next starts one). */
  block: Block | null;
}

/** A term's current postings document in a scope: its runs, flat and absolute (`[start0, end0, …]`). */
interface Postings {
  /** `<code>|<term>|` */
  prefix: string;
  runs: number[];
  /** Whether the prefix was put in the filter of stored ones (it is, once stored: see `filter`). */
  filtered: boolean;
  /** The last batch (its sequence number) that touched it: recently used ones are kept when memory is trimmed. */
  used: number;
}

/** Entries of a block, from its first. */
interface Block {
  id: string;
  entries: AuditEntry[];
}

/** Scopes (and copy tasks) whose state is kept in memory; others are read back from the index when they come again. */
const CACHED_SCOPES = 10_000;
/**
 * Terms whose current postings are kept in memory (trimmed after each write); others are read back when they come again.
 * A larger cache replayed the rebuild's and the bulk load's logs no faster and held far more of the thread's heap
 * on the memory row's million tuples (docs/bench-history/design-choices.md); a live environment's hot terms are far fewer.
 */
const CACHED_POSTINGS = 5_000;
/** Postings used within this many batches are kept when the cache is trimmed, if older ones can go. */
const RECENT_BATCHES = 3;
/** Postings prefixes the first filter of stored ones holds (2 MiB); it doubles when full. */
const FILTERED_PREFIXES = 1 << 20;
/** Ids read per page when a scope's stored prefixes are added to the filter. */
const PREFIX_PAGE = 10_000;

/**
 * The audit-log index (shared/read-models/audit-log.ts): every event, in every
 * scope it belongs to, as an entry and as an extension of the runs of its terms.
 *
 * Postings and entry blocks are written once per batch (at its last event,
 * which `prepare` points out), so a term that 5,000 events of a batch carry costs
 * one document write however many runs they make, and their entries one per
 * ENTRIES_PER_BLOCK. Idempotent under redelivery: a scope's state is read back
 * from the index when an event comes at or before its last indexed position.
 *
 * A term whose postings are not in memory (never seen, or dropped from the
 * cache) goes on in one of two ways, by whether batches are atomic:
 * - Atomic (SQLite: the runner applies each batch in one transaction), nothing a
 *   failed attempt wrote survives it, so the stored documents are those of
 *   whole batches. The term starts a new document at this event without reading
 *   the last one back: its documents still follow one another (the new one
 *   starts after every stored run), only some hold fewer runs than they could.
 *   That read was a visible part of the projection's work in a bulk load (docs/bench-history/design-choices.md).
 * - Not atomic (MongoDB), a crashed attempt may have left documents past the
 *   checkpoint, which a new document could straddle. The term's last document
 *   is read back (if the filter of stored prefixes may hold it) and cut back to
 *   the scope's last indexed position, so that documents always hold 16 runs
 *   and replaying the same events in order rebuilds the same documents,
 *   however the batches and the crashes fall.
 */
export function auditLogProjection(store: DocumentStore, options: AuditLogOptions = {}): Projection {
  const atomic = options.atomicBatches ?? store.atomicTransactions;
  return new AuditLogProjection(
    store,
    new AuditCollections(store),
    options.cachedPostings ?? CACHED_POSTINGS,
    atomic ? null : new PrefixFilter(options.filteredPrefixes ?? FILTERED_PREFIXES),
  );
}

export interface AuditLogOptions {
  /** Terms whose current postings stay in memory (default CACHED_POSTINGS; the tests make it small so that terms are read back). */
  cachedPostings?: number;
  /** Prefixes the first filter of stored postings holds before it grows (default FILTERED_PREFIXES; the tests make it small). */
  filteredPrefixes?: number;
  /**
   * Whether each batch is applied all or nothing (default: the store's `atomicTransactions`, since
   * the runner applies every batch in a transaction). The tests that crash part-way through a batch
   * on SQLite, outside a transaction, say false.
   */
  atomicBatches?: boolean;
}

class AuditLogProjection implements Projection {
  readonly name = 'audit-log';
  readonly version = 1;
  /** Every event: the log has no change an auditor may not see. */
  readonly handles: ReadonlySet<DomainEvent['type']> = new Set(streamKinds.flatMap((kind) => eventTypes[kind]));

  private readonly scopes = new Map<string, ScopeState>();
  private readonly taskScopes = new Map<string, string[]>();
  private readonly dirtyBlocks = new Map<string, { code: string; block: Block }>();
  /** Current postings by `<code>|<term>|`, in the order they were first kept (see forgetPostingsPastCache). */
  private readonly postings = new Map<string, Postings>();
  /** Batches prepared so far: the clock of Postings.used. */
  private batches = 0;
  private readonly dirtyPostings = new Set<Postings>();
  /** Position of the batch's last event, where the buffered writes go out; null: after each event. */
  private batchEnd: number | null = null;
  private highest = 0;
  private readonly metadataTerms = new MetadataTerms();
  /** Scopes all of whose stored postings prefixes the filter holds: new to this projection, or read into it. */
  private readonly filteredScopes = new Set<string>();

  constructor(
    private readonly store: DocumentStore,
    private readonly c: AuditCollections,
    private readonly cachedPostings: number,
    /**
     * Where batches are not atomic, the prefixes of every postings document this
     * projection wrote, and of the stored ones of `filteredScopes`: a term not in
     * memory whose prefix it does not hold has no postings in its scope, and needs
     * no read to learn so (every request's own `request_id` term, for one). Added
     * to only (a write that never landed leaves a false positive, which costs a
     * read and nothing else). Null where batches are atomic: nothing is read back.
     */
    private filter: PrefixFilter | null,
  ) {}

  async prepare(batch: RecordedEvent[]): Promise<void> {
    // What a failed batch left buffered was rolled back with it (or will be replayed).
    this.dirtyBlocks.clear();
    this.dirtyPostings.clear();
    this.batches++;
    this.batchEnd = batch.filter((event) => isDomainEvent(event)).at(-1)?.position ?? null;
    if (batch.length > 0 && batch[0]!.position <= this.highest) {
      this.scopes.clear();
      this.postings.clear();
    }
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
    const previous = state.lastPosition;
    for (const term of terms) {
      const prefix = postingsPrefix(state.code, term);
      const cached = this.postings.get(prefix);
      let postings = cached ?? (await this.storedPostings(state, prefix, term));
      if (postings && previous > 0 && postings.runs[postings.runs.length - 1] === previous) {
        // The term's run holds the scope's event before this one: it goes on.
        postings.runs[postings.runs.length - 1] = position;
      } else if (postings && postings.runs.length < 2 * RUNS_PER_POSTINGS) {
        postings.runs.push(position, position);
      } else {
        // A new prefix, or the next document of one the filter holds.
        postings = { prefix, runs: [position, position], filtered: postings !== undefined, used: 0 };
      }
      postings.used = this.batches;
      if (postings !== cached) this.postings.set(prefix, postings);
      this.dirtyPostings.add(postings);
    }
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
      // No postings can be stored under a code not given before: all the scope's will pass through the filter.
      this.filteredScopes.add(scope);
      return { id: scope, code, lastPosition: 0, logTime: 0, block: null };
    }
    // The block before `position` goes on from its entries before it (a replay drops the others, and writes them again).
    const [previous] = await this.c.entries.find(
      { id: { $gt: entryBounds(stored.code).low, $lt: entryId(stored.code, position) } },
      { sortBy: 'id', descending: true, limit: 1 },
    );
    if (!previous) return { id: scope, code: stored.code, lastPosition: 0, logTime: 0, block: null };
    const entries = decodeBlock(previous).filter((entry) => entry.position < position);
    const last = entries.at(-1)!;
    return {
      id: scope,
      code: stored.code,
      lastPosition: last.position,
      logTime: last.t,
      block: { id: previous.id, entries },
    };
  }

  /**
   * Where batches are not atomic, the term's stored current postings, as of the scope's last
   * indexed event: runs a crashed attempt wrote past it are cut back (the replay writes them
   * again). Where they are, none: the term starts a new document (see auditLogProjection).
   */
  private async storedPostings(state: ScopeState, prefix: string, term: string): Promise<Postings | undefined> {
    if (state.lastPosition === 0 || this.filter === null) return undefined;
    if (!this.filteredScopes.has(state.id)) await this.filterStoredPrefixes(state, this.filter);
    if (!this.filter.mayHold(prefix)) return undefined;
    const [doc] = await this.c.postings.find(
      { id: { $gt: prefix, $lte: postingsId(state.code, term, state.lastPosition) } },
      { sortBy: 'id', descending: true, limit: 1 },
    );
    if (!doc) return undefined;
    const runs = decodePostings(doc);
    while (runs[runs.length - 2]! > state.lastPosition) runs.length -= 2;
    if (runs[runs.length - 1]! > state.lastPosition) runs[runs.length - 1] = state.lastPosition;
    return { prefix, runs, filtered: true, used: this.batches };
  }

  /**
   * Adds the prefixes of the scope's stored postings to the filter, a page of
   * ids at a time: once per scope indexed before this projection started (and
   * again after the filter grows), on the first term it does not hold in memory.
   */
  private async filterStoredPrefixes(state: ScopeState, filter: PrefixFilter): Promise<void> {
    // Every id in the scope starts with `<code>|`, and '}' follows '|'.
    let after = `${state.code}|`;
    const end = `${state.code}}`;
    for (;;) {
      const page = await this.c.postings.find({ id: { $gt: after, $lt: end } }, { sortBy: 'id', limit: PREFIX_PAGE, fields: [] });
      for (const { id } of page) filter.add(id.slice(0, -POSITION_WIDTH));
      if (page.length < PREFIX_PAGE) break;
      after = page.at(-1)!.id;
    }
    this.filteredScopes.add(state.id);
  }

  private async flush(): Promise<void> {
    if (this.dirtyBlocks.size > 0) {
      const blocks = [...this.dirtyBlocks.values()].map(({ code, block }) => encodeBlock(code, block.entries));
      this.dirtyBlocks.clear();
      await this.c.entries.putMany(blocks);
    }
    if (this.dirtyPostings.size > 0) {
      const docs = [...this.dirtyPostings].map((postings) => encodePostings(postings.prefix, postings.runs));
      // Into the filter before the store, so that it never lacks a prefix the store holds (after the
      // filter grows, those stored before go into it again from the store, so they need not be added here).
      const filter = this.filter;
      if (filter !== null)
        for (const postings of this.dirtyPostings) {
          if (postings.filtered) continue;
          filter.add(postings.prefix);
          postings.filtered = true;
        }
      this.dirtyPostings.clear();
      await this.c.postings.putMany(docs);
      if (filter?.full) {
        // A larger one; each scope's prefixes go into it again, from the store, when next needed.
        this.filter = filter.grown();
        this.filteredScopes.clear();
      }
    }
    this.forgetPostingsPastCache();
  }

  /**
   * Drops postings past the cache's size (all written), oldest kept first, but
   * one used in the last few batches goes to the back instead (a clock: moving
   * each on every use would cost a Map delete and insert per term and event).
   */
  private forgetPostingsPastCache(): void {
    if (this.postings.size <= this.cachedPostings) return;
    const recent = this.batches - RECENT_BATCHES;
    for (const [prefix, postings] of this.postings) {
      if (this.postings.size <= this.cachedPostings) return;
      this.postings.delete(prefix);
      // Moved back, it is visited again, and then dropped: the loop ends.
      if (postings.used > recent) {
        postings.used = recent;
        this.postings.set(prefix, postings);
        continue;
      }
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
