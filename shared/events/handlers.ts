import type { EventData } from './envelope';

/**
 * Exhaustive handler maps. A fold or a projection says what it does with each
 * event type of its stream kind in one object keyed by type; the map's type
 * is a mapped type over the catalogue's union, so a type missing from it
 * fails to compile, and each handler gets its event narrowed to its type.
 * A type the map does not act on says so: 'ignored'.
 */

/** A union of events (or of recorded events, RecordedOf) as a map from each type to its event. */
export type EventsByType<E extends EventData> = { [T in E['type']]: Extract<E, { type: T }> };

/** What is done with one event type: a handler of (context, event), or nothing. */
export type EventHandler<C, E, R> = ((context: C, event: E) => R) | 'ignored';

/** One EventHandler per key of an events-by-type map. */
export type HandlerMap<M, C, R> = { readonly [T in keyof M]: EventHandler<C, M[T], R> };

/** One EventHandler per type of a union of events, each given `C` (a fold's state, a projection's context) and the event. */
export type EventHandlers<E extends EventData, C, R = void> = HandlerMap<EventsByType<E>, C, R>;

/**
 * Runs the handler of `type` with `event` (which must be of that type: the
 * callers pass `event.type`); an ignored type does nothing and gives undefined.
 */
export function dispatch<M, T extends keyof M, C, R>(handlers: HandlerMap<M, C, R>, type: T, context: C, event: M[T]): R | undefined {
  const handler = handlers[type];
  return handler === 'ignored' ? undefined : handler(context, event);
}

/**
 * The types a map handles (those not 'ignored'), for a projection's `handles`.
 * `types` is the catalogue's list of the map's kind; a type with no entry
 * throws here too, for maps that escaped the type check.
 */
export function handledTypes<T extends string>(types: readonly T[], handlers: { readonly [K in T]: unknown }): ReadonlySet<T> {
  const missing = types.filter((type) => !(type in handlers));
  if (missing.length > 0) throw new Error(`No handler entry for event type(s) ${missing.join(', ')}`);
  return new Set(types.filter((type) => handlers[type] !== 'ignored'));
}
