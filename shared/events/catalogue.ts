import type { z } from 'zod';
import type { RecordedEvent, RecordedOf } from './envelope';
import { envEventSchemas } from './env-events';
import { orgEventSchemas } from './org-events';
import { taskEventSchemas } from './task-events';

/**
 * The catalogue of event types. An event type is declared once: as a zod
 * schema in the list of its stream kind (env-events.ts, org-events.ts,
 * task-events.ts). The unions, the type lists and the lookups below are
 * derived from those lists, and so are the keys the exhaustive handler maps
 * of folds and projections must have (handlers.ts): a new type fails to
 * compile until each of them says what it does with it.
 */
export const eventSchemas = { org: orgEventSchemas, env: envEventSchemas, task: taskEventSchemas } as const;

/** A stream kind, named as the category of its streams (`org-…`, `env-…`, `task-…`). */
export type StreamKind = keyof typeof eventSchemas;
export const streamKinds: readonly StreamKind[] = ['org', 'env', 'task'];

/** The events of one stream kind, as a union discriminated by `type`. */
export type EventsOf<K extends StreamKind> = z.infer<(typeof eventSchemas)[K][number]>;
/** Every event the service writes. */
export type DomainEvent = EventsOf<StreamKind>;
export type DomainEventType = DomainEvent['type'];
export type EventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;

/** Every event type of each stream kind, in declaration order. */
export const eventTypes: { readonly [K in StreamKind]: readonly EventsOf<K>['type'][] } = {
  org: orgEventSchemas.map((schema) => schema.shape.type.value),
  env: envEventSchemas.map((schema) => schema.shape.type.value),
  task: taskEventSchemas.map((schema) => schema.shape.type.value),
};

const kindOfType = new Map<string, StreamKind>(streamKinds.flatMap((kind) => eventTypes[kind].map((type) => [type, kind] as const)));

/** The stream kind that declares `type`; undefined for a type the catalogue does not know. */
export const kindOf = (type: string): StreamKind | undefined => kindOfType.get(type);

/**
 * Narrows an event read from the log to its kind's union, by its type alone:
 * every event was checked against the catalogue's zod union before it was
 * appended, so its type says what its data holds. Events read back from the
 * log get their static type here, and nowhere else.
 */
export function isEventOf<K extends StreamKind, R extends RecordedEvent>(kind: K, event: R): event is R & RecordedOf<EventsOf<K>> {
  return kindOfType.get(event.type) === kind;
}

/** As isEventOf, for an event of any kind the catalogue declares. */
export function isDomainEvent<R extends RecordedEvent>(event: R): event is R & RecordedOf<DomainEvent> {
  return kindOfType.has(event.type);
}
