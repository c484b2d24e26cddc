import type { Logger } from 'pino';
import type { z } from 'zod';
import { domainEventSchema } from '../events';
import {
  DomainError,
  InvalidRequestError,
  PayloadTooLargeError,
  StreamVersionConflictError,
  UnavailableError,
  ValidationError,
} from '../errors';
import type { EventData, EventMetadata, NewEvent } from '../events/envelope';
import { eventJson, sizeOver } from '../eventstore/event-json';
import type { EventStore } from '../eventstore/port';
import type { Decider } from './decider';
import type { SnapshotStore } from './snapshot-store';
import { contextWithSpan, endSpan, inSpan, inSpanSync, linksToSpans, startSpan, type Span } from '../tracing/spans';
// setImmediate runs after the event loop has looked at the sockets: awaited, it lets the loop serve what came meanwhile.
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface CommandOutcome<Event extends EventData> {
  events: Event[];
  /** Global position at or after which the read models reflect this command. */
  position: number;
  streamVersion: number;
}

interface Queued<Command, Event extends EventData> {
  command: Command;
  metadata: EventMetadata;
  resolve: (outcome: CommandOutcome<Event>) => void;
  reject: (error: unknown) => void;
  /** The command's span (tracing on), from its arrival to its answer: the batch's load, decide and append are its children. */
  span?: Span;
}

interface StreamSlot<Command, State, Event extends EventData> {
  state: State;
  /** Version of the last event folded into `state` (-1: none). */
  version: number;
  queue: Queued<Command, Event>[];
  draining: boolean;
  /** Version of the last snapshot taken or loaded (-1: none). */
  snapshotVersion: number;
  /** False until a snapshot load was tried for this stream. */
  snapshotLoaded: boolean;
  /**
   * Settles when the work holding the stream's state is done. Catching up and
   * deciding a batch take turns through it: two interleaved folds of one stream
   * would apply the same events twice.
   */
  turn: Promise<void>;
}

/** Events a catch-up reads and folds between two turns of the event loop. */
const FOLD_BATCH = 5_000;

export interface SnapshotPolicy {
  store: SnapshotStore;
  /**
   * Take a snapshot once this many events have been folded since the last one
   * (or more on a long stream: see snapshotInterval).
   */
  every: number;
}

/**
 * Events to fold between two snapshots of a stream whose last snapshot is at
 * `snapshotVersion`: `every`, or a quarter of the stream if that is more. A
 * snapshot serialises the whole state, which grows with the stream (up to an
 * entry per event); at a fixed interval a large environment spent a share of
 * each event's cost comparable to deciding and appending it on serialising,
 * and left that garbage outside the V8 heap each time (figures in
 * docs/bench-history/design-choices.md). Spacing snapshots in proportion to the stream
 * keeps their cost per event constant, and a restart after a crash still
 * folds at most a fifth of the stream (a shutdown saves a fresh one).
 */
export function snapshotInterval(every: number, snapshotVersion: number): number {
  return Math.max(every, Math.floor((snapshotVersion + 1) / 4));
}

const MAX_ATTEMPTS = 5;

/**
 * The one command pipeline: load state → pure decide → append with the
 * expected stream version → bounded retry on a version conflict.
 *
 * Commands for one stream are queued and handled in batches: each queued command
 * is decided against the state left by the previous one, and the batch's events
 * go to the log in one append. A refused command refuses alone and appends
 * nothing. State is cached per stream and caught up from the log before each
 * batch, so another process writing the same stream is noticed (and a conflict
 * at append time makes the whole batch start again on fresh state).
 *
 * One command cannot fail the others of its batch: its events are serialised
 * and measured against the store's limit when it is decided, and one that
 * cannot be stored refuses its command alone (4xx) before joining the batch.
 * Should the store still refuse a batch's append (a limit on the whole append,
 * a cause nobody foresaw), its commands are appended again one by one, so the
 * failure reaches only the command that causes it.
 */
export class CommandPipeline<Command, State, Event extends EventData> {
  private readonly slots = new Map<string, StreamSlot<Command, State, Event>>();
  /** Snapshot writes under way; shutdown waits for them. */
  private readonly savesInFlight = new Set<Promise<void>>();

  /**
   * @param eventSchema every decided event is checked against it before it can
   * reach the log (the log is forever; a malformed event is a bug to stop at the
   * door). Defaults to the union of all domain events; null turns the check off.
   */
  constructor(
    private readonly store: EventStore,
    private readonly decider: Decider<Command, State, Event>,
    private readonly logger: Logger,
    private readonly eventSchema: z.ZodType | null = domainEventSchema,
    private readonly snapshots: SnapshotPolicy | null = null,
  ) {}

  execute(streamId: string, command: Command, metadata: EventMetadata): Promise<CommandOutcome<Event>> {
    const slot = this.slot(streamId);
    const span = startSpan(`command ${(command as { type?: string }).type ?? 'unknown'}`, { attributes: { 'rebac.stream': streamId } });
    return new Promise((resolve, reject) => {
      if (span) {
        const [answer, refuse] = [resolve, reject];
        resolve = (outcome) => (endSpan(span), answer(outcome));
        reject = (error) => (endSpan(span, error), refuse(error));
      }
      slot.queue.push({ command, metadata, resolve, reject, span });
      if (!slot.draining) void this.drain(streamId, slot);
    });
  }

  /** The current state of a stream, caught up with the log (for queries that need the decider's view). */
  async currentState(streamId: string): Promise<State> {
    const slot = this.slot(streamId);
    await this.inTurn(slot, () => this.catchUp(streamId, slot));
    return slot.state;
  }

  /** Runs `work` once the stream's previous work is done; the next waits for this one. */
  private inTurn<T>(slot: StreamSlot<Command, State, Event>, work: () => Promise<T>): Promise<T> {
    const run = slot.turn.then(work);
    slot.turn = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private slot(streamId: string): StreamSlot<Command, State, Event> {
    let slot = this.slots.get(streamId);
    if (!slot) {
      slot = {
        state: this.decider.initialState(),
        version: -1,
        queue: [],
        draining: false,
        snapshotVersion: -1,
        snapshotLoaded: false,
        turn: Promise.resolve(),
      };
      this.slots.set(streamId, slot);
    }
    return slot;
  }

  private async drain(streamId: string, slot: StreamSlot<Command, State, Event>): Promise<void> {
    slot.draining = true;
    try {
      while (slot.queue.length > 0) {
        await this.inTurn(slot, () => this.handleBatch(streamId, slot, slot.queue.splice(0, slot.queue.length)));
      }
    } finally {
      slot.draining = false;
    }
  }

  private async handleBatch(streamId: string, slot: StreamSlot<Command, State, Event>, batch: Queued<Command, Event>[]): Promise<void> {
    // The batch's shared steps belong to its first traced command's trace and link the others'.
    const lead = batch.find((item) => item.span)?.span;
    const parent = contextWithSpan(lead);
    const links = linksToSpans(batch.map((item) => item.span).filter((span) => span !== lead));
    for (let attempt = 1; ; attempt++) {
      try {
        await inSpan(
          'load state',
          { attributes: { 'rebac.stream': streamId, 'rebac.attempt': attempt }, links },
          () => this.catchUp(streamId, slot),
          parent,
        );
      } catch (error) {
        this.reset(slot);
        batch.forEach((item) => item.reject(error));
        return;
      }
      const expected = slot.version;
      const decided = batch.map((item) => this.decideOne(streamId, slot, item));
      const toAppend: NewEvent[] = decided.flatMap((d) => (d.ok ? d.toAppend : []));
      if (toAppend.length === 0) {
        decided.forEach((d, i) =>
          d.ok ? batch[i]!.resolve({ events: [], position: 0, streamVersion: expected }) : batch[i]!.reject(d.error),
        );
        return;
      }
      try {
        const result = await inSpan(
          'append',
          {
            attributes: {
              'rebac.stream': streamId,
              'rebac.events': toAppend.length,
              'rebac.commands': batch.length,
              'rebac.expected_version': expected,
            },
            links,
          },
          () => this.store.append(streamId, toAppend, expected === -1 ? 'no_stream' : expected),
          parent,
        );
        slot.version = result.streamVersion;
        this.snapshotIfDue(streamId, slot);
        decided.forEach((d, i) =>
          d.ok
            ? batch[i]!.resolve({ events: d.events, position: result.position, streamVersion: result.streamVersion })
            : batch[i]!.reject(d.error),
        );
        return;
      } catch (error) {
        // The state already holds the refused events: start again from the log.
        this.reset(slot);
        if (error instanceof StreamVersionConflictError && attempt < MAX_ATTEMPTS) {
          this.logger.debug({ streamId, attempt }, 'version conflict, retrying command batch');
          continue;
        }
        if (decided.filter((d) => d.ok && d.toAppend.length > 0).length > 1 && isolable(error)) {
          this.logger.warn({ err: error, streamId, commands: batch.length }, 'a batched append failed; appending its commands one by one');
          // Already in the stream's turn: each goes through as a batch of its own, in order.
          for (const item of batch) await this.handleBatch(streamId, slot, [item]);
          return;
        }
        batch.forEach((item) => item.reject(error));
        return;
      }
    }
  }

  private decideOne(
    streamId: string,
    slot: StreamSlot<Command, State, Event>,
    item: Queued<Command, Event>,
  ): { ok: true; events: Event[]; toAppend: NewEvent[] } | { ok: false; error: unknown } {
    return inSpanSync(
      'decide',
      {},
      (span) => {
        const decided = this.decideUntraced(streamId, slot, item);
        span.setAttribute('rebac.decision', decided.ok ? 'accepted' : 'refused');
        return decided;
      },
      contextWithSpan(item.span),
    );
  }

  private decideUntraced(
    streamId: string,
    slot: StreamSlot<Command, State, Event>,
    item: Queued<Command, Event>,
  ): { ok: true; events: Event[]; toAppend: NewEvent[] } | { ok: false; error: unknown } {
    try {
      const events = this.decider.decide(item.command, slot.state);
      if (this.eventSchema) for (const event of events) this.eventSchema.parse(event);
      const toAppend = events.map((e): NewEvent => ({ type: e.type, data: e.data, metadata: item.metadata }));
      const unstorable = this.unstorable(toAppend);
      if (unstorable) {
        this.logger.warn({ streamId, reason: unstorable.message }, 'refused a command whose events cannot be stored');
        return { ok: false, error: unstorable };
      }
      for (const event of events) slot.state = this.decider.evolve(slot.state, event);
      return { ok: true, events, toAppend };
    } catch (error) {
      // A refusal (a DomainError, or field problems a decider names, e.g. conditions that cannot match) is expected.
      if (!(error instanceof DomainError) && !(error instanceof ValidationError))
        this.logger.error({ err: error }, 'decider failed unexpectedly');
      return { ok: false, error };
    }
  }

  /** Why these events cannot go to the log (JSON cannot hold them, or one is over the store's limit); null when they can. */
  private unstorable(events: NewEvent[]): DomainError | null {
    const limit = this.store.maxEventBytes;
    for (const event of events) {
      let json;
      try {
        json = eventJson(event);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (/string length/i.test(message)) return new PayloadTooLargeError(`The request's ${event.type} event is too large to serialise`);
        const reason = /call stack/i.test(message) ? 'it is nested too deeply' : message;
        return new InvalidRequestError(`The request cannot be stored: JSON cannot represent its ${event.type} event (${reason})`);
      }
      const size = limit === undefined ? undefined : (sizeOver(json.data, limit) ?? sizeOver(json.metadata, limit));
      if (size !== undefined)
        return new PayloadTooLargeError(
          `The request's ${event.type} event is ${size} bytes of JSON; the event store takes at most ${limit}`,
        );
    }
    return null;
  }

  private async catchUp(streamId: string, slot: StreamSlot<Command, State, Event>): Promise<void> {
    if (this.snapshots && !slot.snapshotLoaded) {
      slot.snapshotLoaded = true;
      const snapshot = await this.snapshots.store.load(streamId);
      // A snapshot ahead of the log belongs to another log (a reset data dir): ignore it.
      if (snapshot && snapshot.version <= (await this.store.streamVersion(streamId))) {
        slot.state = this.decider.snapshot ? this.decider.snapshot.fromData(snapshot.state) : (snapshot.state as State);
        slot.version = snapshot.version;
        slot.snapshotVersion = snapshot.version;
      }
    }
    const startVersion = slot.version;
    for (;;) {
      const events = await this.store.readStream(streamId, slot.version + 1, FOLD_BATCH);
      for (const event of events) {
        slot.state = this.decider.evolve(slot.state, { type: event.type, data: event.data } as Event);
        slot.version = event.streamVersion;
      }
      if (events.length < FOLD_BATCH) break;
      // A store that reads synchronously (SQLite) resolves each read at once: without a turn of the
      // event loop here, folding a long stream would hold every request of the process until done.
      await nextTurn();
    }
    if (slot.version > startVersion) this.snapshotIfDue(streamId, slot);
  }

  /** Snapshots are a cache: a failed save is logged and costs only a longer fold later. */
  private snapshotIfDue(streamId: string, slot: StreamSlot<Command, State, Event>): void {
    if (!this.snapshots || slot.version - slot.snapshotVersion < snapshotInterval(this.snapshots.every, slot.snapshotVersion)) return;
    this.saveSnapshot(streamId, slot);
  }

  private saveSnapshot(streamId: string, slot: StreamSlot<Command, State, Event>): void {
    slot.snapshotVersion = slot.version;
    // save() serialises synchronously, before its first await, so later in-place evolves cannot leak in.
    const data = this.decider.snapshot ? this.decider.snapshot.toData(slot.state) : slot.state;
    const saving = this.snapshots!.store.save(streamId, slot.version, data).catch((error: unknown) => {
      this.logger.warn({ err: error, streamId }, 'could not save a command-state snapshot');
    });
    this.savesInFlight.add(saving);
    void saving.finally(() => this.savesInFlight.delete(saving));
  }

  /** Saves a snapshot of every stream that moved since its last one, and waits for every save under way (on shutdown). */
  async flushSnapshots(): Promise<void> {
    if (!this.snapshots) return;
    // In turn: a batch under way holds decided events that are not in the log yet.
    const taken = [...this.slots].map(([streamId, slot]) =>
      this.inTurn(slot, async () => {
        if (slot.version >= 0 && slot.version > slot.snapshotVersion) this.saveSnapshot(streamId, slot);
      }),
    );
    await Promise.all(taken);
    await Promise.all([...this.savesInFlight]);
  }

  private reset(slot: StreamSlot<Command, State, Event>): void {
    slot.state = this.decider.initialState();
    slot.version = -1;
    slot.snapshotVersion = -1;
    slot.snapshotLoaded = false;
  }
}

/**
 * Whether a failed append of several commands is worth repeating one command
 * at a time: not when the store is unreachable (each would fail alike, one
 * timeout after another), nor after version conflicts ran out of retries.
 */
function isolable(error: unknown): boolean {
  return !(error instanceof UnavailableError) && !(error instanceof StreamVersionConflictError);
}
