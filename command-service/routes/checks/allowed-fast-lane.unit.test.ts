import { withoutNullOptionals } from '../../http/null-as-absent';
import { refusingUndeclaredFields } from '../../http/validation';
import { abacInputsOf } from './abac-inputs';
import { simpleCheckOf } from './allowed-fast-lane';
import { checkSchema } from './schemas';

/**
 * The fast lane answers a check body itself only when the route's own schema would take it and
 * read the same question from it. Random bodies built from the parts the SDKs send, and from
 * parts the schema refuses, are put to both.
 */
describe('simpleCheckOf, the fast lane’s reading of a check body', () => {
  const routeSchema = refusingUndeclaredFields(checkSchema);

  // A small deterministic generator (mulberry32), so a failure replays.
  function random(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const pick = <T>(next: () => number, values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  const ABSENT = Symbol('absent');
  const strings = ['carol', '', 'document', 'document:doc', 'document:', ':doc', 'a:b:c', ' ', 'é'];
  const free = [ABSENT, null, {}, { level: 3 }, [], 'x', 0];
  const object = (entries: Array<[string, unknown]>) => Object.fromEntries(entries.filter(([, value]) => value !== ABSENT));

  function body(next: () => number): unknown {
    const user = pick(next, [
      ...strings,
      7,
      null,
      ABSENT,
      () =>
        object([
          ['key', pick(next, [...strings, ABSENT, 1])],
          ['attributes', pick(next, free)],
        ]),
      () =>
        object([
          ['key', 'carol'],
          ['firstName', 'Carol'],
        ]),
    ]);
    const resource = pick(next, [
      ...strings,
      ABSENT,
      [],
      () =>
        object([
          ['type', pick(next, [...strings, ABSENT, 1])],
          ['key', pick(next, [...strings, ABSENT, null, 2])],
          ['tenant', pick(next, [...strings, ABSENT, null])],
          ['attributes', pick(next, free)],
          ['context', pick(next, free)],
          ['extra', pick(next, [ABSENT, ABSENT, ABSENT, 1])],
        ]),
    ]);
    const parts = object([
      ['user', typeof user === 'function' ? user() : user],
      ['action', pick(next, [...strings, ABSENT, 3])],
      ['resource', typeof resource === 'function' ? resource() : resource],
      ['context', pick(next, free)],
      ['explain', pick(next, [ABSENT, ABSENT, ABSENT, false, true])],
      ['surprise', pick(next, [ABSENT, ABSENT, ABSENT, ABSENT, 1])],
    ]);
    return pick(next, [parts, parts, parts, parts, [parts], null, 'check']);
  }

  it('takes only bodies the route takes, and reads the same question from them', () => {
    const next = random(20261125);
    let taken = 0;
    let refusedByRoute = 0;
    for (let i = 0; i < 20_000; i++) {
      const sent = body(next);
      const lane = simpleCheckOf(sent);
      // As the route parses a body: a null for an optional member is absent (null-as-absent.ts).
      const route = routeSchema.safeParse(withoutNullOptionals(routeSchema, sent));
      if (!route.success) refusedByRoute++;
      if (lane === undefined) continue;
      taken++;
      expect(route.success).toBe(true);
      const { user, action, resource, explain, as_of } = route.data!;
      expect({ user, action, resource }).toEqual(lane);
      // Nothing the route would read beyond the question: no explanation, no past position, no ABAC inputs.
      expect(explain ?? false).toBe(false);
      expect(as_of).toBeUndefined();
      expect(abacInputsOf(sent, ['body'])).toBeUndefined();
    }
    // Not a vacuous run: the lane took many bodies and the route refused many others.
    expect(taken).toBeGreaterThan(200);
    expect(refusedByRoute).toBeGreaterThan(5_000);
  });

  it('takes the shapes the Node and Python SDKs send', () => {
    expect(
      simpleCheckOf({
        user: { key: 'carol', attributes: {} },
        action: 'read',
        resource: { type: 'document', key: 'doc', tenant: 'acme', attributes: {}, context: {} },
        context: {},
      }),
    ).toEqual({ user: 'carol', action: 'read', resource: { type: 'document', key: 'doc', tenant: 'acme' } });
    expect(simpleCheckOf({ user: 'carol', action: 'read', resource: 'document:doc' })).toEqual({
      user: 'carol',
      action: 'read',
      resource: { type: 'document', key: 'doc', tenant: null },
    });
  });
});
