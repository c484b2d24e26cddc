import { z } from 'zod';

/**
 * An explicit `null` for an optional member means absent, as in Permit's request models (pydantic
 * `Optional[...] = None`): the Python SDK 2.x sends every unset optional field as `null`, nested
 * ones too. This drops such members before the schema parses the body, so every route (and the
 * create fast lane) takes them as if they were not sent, while a `null` for a required member is
 * still refused by the schema with a 422 naming it. A member whose schema takes `null` itself
 * (a free-form JSON value, `description` where null clears it) keeps it: it means something there.
 *
 * Walks the schema beside the value, into objects, arrays, records, unions and intersections,
 * never into free-form JSON (`z.unknown()`, records of unknown values): a `null` inside an
 * attribute's value is data. Copies only what it changes; a body without such nulls is returned
 * as it is.
 */
export function withoutNullOptionals(schema: z.ZodType, value: unknown): unknown {
  const def = core(schema).def;
  switch (def.type) {
    case 'object':
      return isPlainObject(value) ? objectWithoutNullOptionals((def as z.core.$ZodObjectDef).shape, value) : value;
    case 'array': {
      if (!Array.isArray(value)) return value;
      const element = (def as z.core.$ZodArrayDef).element as z.ZodType;
      return copiedWhereChanged(value, (item) => withoutNullOptionals(element, item));
    }
    case 'record': {
      if (!isPlainObject(value)) return value;
      const valueType = (def as z.core.$ZodRecordDef).valueType as z.ZodType;
      let out: Record<string, unknown> | undefined;
      for (const [key, member] of Object.entries(value)) {
        const next = withoutNullOptionals(valueType, member);
        if (next !== member) setOwn((out ??= { ...value }), key, next);
      }
      return out ?? value;
    }
    case 'union': {
      if (typeof value !== 'object' || value === null) return value;
      // The first option the value fits once its nulls are dropped; as it was when none does.
      for (const option of (def as z.core.$ZodUnionDef).options as z.ZodType[]) {
        const candidate = withoutNullOptionals(option, value);
        if (candidate !== value && option.safeParse(candidate).success) return candidate;
      }
      return value;
    }
    case 'intersection': {
      const { left, right } = def as z.core.$ZodIntersectionDef;
      return withoutNullOptionals(right as z.ZodType, withoutNullOptionals(left as z.ZodType, value));
    }
    default:
      return value;
  }
}

function objectWithoutNullOptionals(shape: Record<string, z.core.$ZodType>, value: Record<string, unknown>): unknown {
  let out: Record<string, unknown> | undefined;
  for (const [key, member] of Object.entries(value)) {
    // Undeclared members (`__proto__` too: an own key of the body, never the shape's prototype) are left for the schema to refuse by name.
    if (!Object.hasOwn(shape, key)) continue;
    const memberSchema = shape[key] as z.ZodType;
    if (member === null) {
      if (nullMeansAbsent(memberSchema)) {
        out ??= { ...value };
        delete out[key];
      }
      continue;
    }
    const next = withoutNullOptionals(memberSchema, member);
    if (next !== member) setOwn((out ??= { ...value }), key, next);
  }
  return out ?? value;
}

/** `object[key] = value` as JSON.parse makes it: an own data property, whatever the key (`__proto__` would set the prototype). */
function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Whether a `null` for this object member is dropped as absent: it is optional and null is not one of its values. */
export function nullMeansAbsent(memberSchema: z.ZodType): boolean {
  return takesAbsent(memberSchema) && !takesNull(memberSchema);
}

/** The schema under the wrappers that do not change the shape of what it takes. */
function core(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = current.def as { type: string; innerType?: z.ZodType; in?: z.ZodType; getter?: () => z.ZodType };
    switch (def.type) {
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'readonly':
      case 'catch':
      case 'nonoptional':
        current = def.innerType!;
        break;
      case 'pipe':
        current = def.in!;
        break;
      case 'lazy':
        current = def.getter!();
        break;
      default:
        return current;
    }
  }
}

const absentTaken = new WeakMap<z.ZodType, boolean>();
const nullTaken = new WeakMap<z.ZodType, boolean>();

/** Whether the member may be left out (optional, or with a default). Asked of the schema once. */
function takesAbsent(schema: z.ZodType): boolean {
  let answer = absentTaken.get(schema);
  if (answer === undefined) absentTaken.set(schema, (answer = schema.safeParse(undefined).success));
  return answer;
}

/** Whether `null` is a value of the member (then it is kept). Asked of the schema once. */
function takesNull(schema: z.ZodType): boolean {
  let answer = nullTaken.get(schema);
  if (answer === undefined) nullTaken.set(schema, (answer = schema.safeParse(null).success));
  return answer;
}

function copiedWhereChanged(items: unknown[], map: (item: unknown) => unknown): unknown[] {
  let out: unknown[] | undefined;
  items.forEach((item, i) => {
    const next = map(item);
    if (next !== item) (out ??= [...items])[i] = next;
  });
  return out ?? items;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
