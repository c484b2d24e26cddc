import type { NewEvent } from '../events/envelope';

/** The JSON text of one event's data and metadata, as a log that stores text keeps them. */
export interface EventJson {
  data: string;
  metadata: string;
}

/** Kept per NewEvent object, which lives as long as its append: nothing outlives the write. */
const byEvent = new WeakMap<NewEvent, EventJson>();
/** A command's events share one metadata object: serialised once. */
const byMetadata = new WeakMap<object, string>();

function stringify(value: unknown, what: string): string {
  const json = JSON.stringify(value) as string | undefined;
  if (typeof json !== 'string') throw new TypeError(`${what} is not JSON (${typeof value})`);
  return json;
}

/**
 * Serialises an event for the log, once. The command pipeline calls it when it
 * decides, so an event that cannot be stored is refused with its own command
 * before it joins a batch; the store gets the same text back here instead of
 * serialising again. Throws what JSON.stringify throws (a cycle, a BigInt,
 * nesting deeper than the stack) and a TypeError when there is no JSON at all
 * (undefined, a function). The event must not change once serialised.
 */
export function eventJson(event: NewEvent): EventJson {
  if (event instanceof SerialisedEvent) return event.json;
  let json = byEvent.get(event);
  if (json) return json;
  const data = stringify(event.data, `the data of a ${event.type} event`);
  const meta = event.metadata as unknown;
  let metadata = typeof meta === 'object' && meta !== null ? byMetadata.get(meta) : undefined;
  if (metadata === undefined) {
    metadata = stringify(meta, `the metadata of a ${event.type} event`);
    if (typeof meta === 'object' && meta !== null) byMetadata.set(meta, metadata);
  }
  json = { data, metadata };
  byEvent.set(event, json);
  return json;
}

/**
 * A new event its writer built as JSON text rather than as values (the copy
 * takes a source event's stored text and changes its id in it): the log stores
 * the text as it is, and the data is parsed only if something reads it. The
 * text must be a JSON text of an object. Not to be spread: its data is a getter.
 */
export class SerialisedEvent implements NewEvent {
  private parsed: unknown = undefined;

  constructor(
    readonly type: string,
    readonly json: EventJson,
    readonly metadata: NewEvent['metadata'],
  ) {}

  get data(): unknown {
    this.parsed ??= JSON.parse(this.json.data) as unknown;
    return this.parsed;
  }
}

/** The UTF-8 size of a JSON text when it is over `limit` bytes, else undefined (counted only when its length leaves a doubt). */
export function sizeOver(json: string, limit: number): number | undefined {
  // A UTF-16 code unit is 1 to 3 UTF-8 bytes (a surrogate pair: 4 for 2).
  if (json.length * 3 <= limit) return undefined;
  const size = Buffer.byteLength(json, 'utf8');
  return size > limit ? size : undefined;
}
