import { evaluate, parseConditions, type AttributeBag } from './index';

/** One test per operator, through the JSON Permit writes: a match, a non-match, and a wrong-kind value as a non-match with a reason. */
const bag = (user: Record<string, unknown>, resource: Record<string, unknown> = {}): AttributeBag => ({
  user,
  resource,
  tenant: {},
  context: {},
});

function check(json: unknown, attributes: AttributeBag) {
  const parsed = parseConditions(json);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return evaluate(parsed.condition, attributes);
}

const leaf = (op: string, operand: unknown, path = 'user.x') => ({ allOf: [{ [path]: { [op]: operand } }] });

describe.each([
  // operator, operand, a matching value, a non-matching value, a value of the wrong kind
  ['equals', 'us', 'us', 'eu', 5],
  ['equals', 3, 3, 4, '3'],
  ['equals', true, true, false, 'true'],
  ['not-equals', 'us', 'eu', 'us', 1],
  ['greater-than', 18, 19, 18, '19'],
  ['greater-than-equals', 18, 18, 17, [18]],
  ['less-than', 10, 9, 10, null],
  ['less-than-equals', 10, 10, 11, true],
  ['contains', 'ops', 'devops-team', 'dev', 42],
  ['array_contains', 'a', ['a', 'b'], ['b'], 'a'],
  ['array_subset', ['a', 'b', 'c'], ['a', 'b'], ['a', 'z'], 'a'],
  ['array_superset', ['a', 'b'], ['a', 'b', 'c'], ['a'], { a: 1 }],
  ['array_intersect', ['c', 'd'], ['a', 'c'], ['a', 'b'], 7],
  [
    'object_match',
    { match: { region: { equals: 'eu' }, level: { 'greater-than': 2 } } },
    { region: 'eu', level: 3 },
    { region: 'eu', level: 1 },
    'eu',
  ],
] as const)('%s %j', (op, operand, yes, no, wrong) => {
  it('matches a value that satisfies it', () => {
    expect(check(leaf(op, operand), bag({ x: yes })).matched).toBe(true);
  });
  it('does not match one that does not', () => {
    const result = check(leaf(op, operand), bag({ x: no }));
    expect(result.matched).toBe(false);
    expect(result.trace).toEqual([{ condition: `user.x ${op} ${JSON.stringify(operand)}`, matched: false }]);
  });
  it('a value of the wrong kind is a non-match with a reason, never a throw', () => {
    const result = check(leaf(op, operand), bag({ x: wrong }));
    expect(result.matched).toBe(false);
    expect(result.trace[0]!.reason).toMatch(/is (bool|number|string|array|object|not a JSON value)/);
  });
  it('an absent attribute is a non-match that says it is absent', () => {
    const result = check(leaf(op, operand), bag({}));
    expect(result.matched).toBe(false);
    expect(result.trace[0]!.reason).toMatch(/^attribute is absent/);
  });
});

describe('comparisons against another attribute (ref)', () => {
  it.each([
    ['equals', 'a@x.io', 'a@x.io', true],
    ['equals', 'a@x.io', 'b@x.io', false],
    ['not-equals', 'k1', 'k2', true],
    ['greater-than', 5, 3, true],
    ['less-than-equals', 5, 3, false],
    ['contains', 'engineering', 'gin', true],
  ] as const)('resource.owner %s ref user.v', (op, resourceValue, userValue, expected) => {
    const result = check(leaf(op, { ref: 'user.v' }, 'resource.owner'), bag({ v: userValue }, { owner: resourceValue }));
    expect(result.matched).toBe(expected);
    expect(result.trace[0]!.condition).toBe(`resource.owner ${op} ref user.v`);
  });
  it('array_contains ref: ["admin","editor"] contains the user role', () => {
    expect(
      check(leaf('array_contains', { ref: 'user.role' }, 'resource.roles'), bag({ role: 'editor' }, { roles: ['admin', 'editor'] }))
        .matched,
    ).toBe(true);
  });
  it('an absent reference is a non-match with a reason', () => {
    const result = check(leaf('equals', { ref: 'user.email' }, 'resource.owner'), bag({}, { owner: 'a' }));
    expect(result).toEqual({
      matched: false,
      trace: [{ condition: 'resource.owner equals ref user.email', matched: false, reason: expect.stringMatching(/operand is absent/) }],
    });
  });
});

describe('logic', () => {
  const adult = { 'user.age': { 'greater-than-equals': 18 } };
  const eu = { 'user.region': { equals: 'eu' } };
  it('allOf needs every part, anyOf one, not inverts', () => {
    const u = bag({ age: 20, region: 'us' });
    expect(check({ allOf: [adult, eu] }, u).matched).toBe(false);
    expect(check({ anyOf: [adult, eu] }, u).matched).toBe(true);
    expect(check({ not: eu }, u).matched).toBe(true);
    expect(check({ allOf: [{ anyOf: [eu, adult] }, { not: { allOf: [eu] } }] }, u).matched).toBe(true);
  });
  it('{} (Permit default) matches everything; several operators on one attribute are a conjunction', () => {
    expect(check({}, bag({})).matched).toBe(true);
    const range = { 'user.age': { 'greater-than': 10, 'less-than': 20 } };
    expect(check(range, bag({ age: 15 })).matched).toBe(true);
    expect(check(range, bag({ age: 25 })).matched).toBe(false);
  });
  it('context and tenant attributes are read from their own subject', () => {
    const json = { allOf: [{ 'context.ip_trusted': { equals: true } }, { 'tenant.plan': { equals: 'pro' } }] };
    expect(check(json, { user: {}, resource: {}, tenant: { plan: 'pro' }, context: { ip_trusted: true } }).matched).toBe(true);
    expect(check(json, { user: {}, resource: {}, tenant: { plan: 'pro' }, context: { ip_trusted: 'yes' } }).matched).toBe(false);
  });
  it('an inherited property name is not an attribute', () => {
    expect(check(leaf('equals', 'x', 'user.constructor'), bag({})).matched).toBe(false);
  });
});

describe('parse', () => {
  it('names every problem with where it is', () => {
    const result = parseConditions({
      allOf: [{ 'member.x': { equals: 1 } }, { 'user.x': { resembles: 1 } }, { 'user.y': { equals: { ref: 'nobody.z' } } }],
      anyOf: 3,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.at)).toEqual([
      'conditions.allOf[0].member.x',
      'conditions.allOf[1].user.x.resembles',
      'conditions.allOf[2].user.y.equals',
      'conditions.anyOf',
    ]);
  });
  it('refuses a condition that is not an object and a null operand', () => {
    expect(parseConditions([]).ok).toBe(false);
    expect(parseConditions({ 'user.x': { equals: null } }).ok).toBe(false);
  });
});
