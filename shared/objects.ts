/**
 * `{ ...base, ...fields }`, without the spread's cost on Node 20. There, an
 * object spread that is then given keys its source lacks is slow (V8 11.3 makes
 * the copy a hidden class of its own, and each added key another), where
 * Object.assign is not; a spread that only overrides keys the source has is as
 * fast as this. It showed in the projections, which made such objects once per
 * event (docs/bench-history/design-choices.md; `bench/object-spread.ts` measures it).
 *
 * Only for objects whose keys are the program's (a document, a filter, a
 * context), never a client's: assign sets a `__proto__` key as the prototype,
 * where a spread copies it as a key.
 */
export function withFields<Base extends object, Fields extends object>(base: Base, fields: Fields): Omit<Base, keyof Fields> & Fields {
  return Object.assign({}, base, fields);
}
