import { z } from 'zod';
import { ValidationError } from '../../shared/errors';
import { withoutNullOptionals } from './null-as-absent';
import { boundedJson, parse } from './validation';

const assignment = z.strictObject({
  user: z.string(),
  role: z.string(),
  tenant: z.string().optional(),
  resource_instance: z.string().optional(),
  description: z.string().nullable().optional(),
  attributes: boundedJson.optional(),
  settings: z.strictObject({ mode: z.enum(['a', 'b']).default('a'), note: z.string().optional() }).optional(),
  items: z.array(z.strictObject({ key: z.string(), name: z.string().optional() })).optional(),
  byKey: z.record(z.string(), z.strictObject({ name: z.string().optional() })).optional(),
});

describe('a null for an optional member means absent', () => {
  it('drops it at the top and in nested objects, arrays and records; the rest is parsed as sent', () => {
    const body = {
      user: 'u',
      role: 'r',
      tenant: 't',
      resource_instance: null,
      settings: { mode: null, note: null },
      items: [{ key: 'k', name: null }],
      byKey: { x: { name: null } },
    };
    expect(parse(assignment, body, 'body')).toEqual({
      user: 'u',
      role: 'r',
      tenant: 't',
      settings: { mode: 'a' },
      items: [{ key: 'k' }],
      byKey: { x: {} },
    });
    // The caller's body is not changed.
    expect(body.resource_instance).toBeNull();
  });

  it('keeps it where null is a value of the member, and inside free-form JSON', () => {
    const body = { user: 'u', role: 'r', description: null, attributes: { manager: null, tags: [null] } };
    expect(parse(assignment, body, 'body')).toEqual(body);
  });

  it('refuses it for a required member, naming the member (422)', () => {
    let refused: unknown;
    try {
      parse(assignment, { user: null, role: 'r' }, 'body');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).detail).toEqual([expect.objectContaining({ loc: ['body', 'user'] })]);
  });

  it('still refuses an undeclared member, null or not', () => {
    expect(() => parse(assignment, { user: 'u', role: 'r', unknown: null }, 'body')).toThrow(ValidationError);
  });

  it('returns a body without such nulls as the same object', () => {
    const body = { user: 'u', role: 'r', items: [{ key: 'k' }] };
    expect(withoutNullOptionals(assignment, body)).toBe(body);
  });

  it("takes a body member named __proto__ as the data it is, never as the shape's or the copy's prototype", () => {
    const body = JSON.parse('{"user":"u","role":"r","__proto__":{"x":null},"byKey":{"__proto__":{"name":null}}}') as unknown;
    expect(() => withoutNullOptionals(assignment, body)).not.toThrow();
    const cleaned = withoutNullOptionals(assignment, body) as Record<string, Record<string, unknown>>;
    expect(Object.getPrototypeOf(cleaned.byKey)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(cleaned.byKey, '__proto__')?.value).toEqual({});
    expect(() => parse(assignment, body, 'body')).toThrow(ValidationError);
  });

  it('takes the union option the body fits once its nulls are dropped', () => {
    const either = z.union([z.strictObject({ a: z.string(), b: z.string().optional() }), z.strictObject({ c: z.string() })]);
    expect(withoutNullOptionals(either, { a: 'x', b: null })).toEqual({ a: 'x' });
    expect(withoutNullOptionals(either, { c: 'x' })).toEqual({ c: 'x' });
  });
});
