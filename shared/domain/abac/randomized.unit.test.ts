import { evaluate, parseConditions, type AttributeBag } from './index';

/**
 * The evaluator against a small reference written independently: it reads
 * Permit's condition JSON directly (no parse step, no operator table) and
 * compares values through canonical JSON text. Random rules over random
 * attribute values, including absent values and values of the wrong kind.
 */

let seed = 0x5eed;
const rand = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;

const canonical = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(',')}]`
    : typeof v === 'object' && v !== null
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${k}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(',')}}`
      : JSON.stringify(v);
const kind = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

function refCompare(op: string, a: unknown, b: unknown): boolean {
  const ka = kind(a);
  const kb = kind(b);
  const num = ka === 'number' && kb === 'number';
  const arr = ka === 'array' && kb === 'array';
  const inList = (list: unknown[], x: unknown) => list.map(canonical).includes(canonical(x));
  switch (op) {
    case 'equals':
      return ka === kb && ka !== 'undefined' && canonical(a) === canonical(b);
    case 'not-equals':
      return ka === kb && ka !== 'undefined' && canonical(a) !== canonical(b);
    case 'greater-than':
      return num && (a as number) > (b as number);
    case 'greater-than-equals':
      return num && (a as number) >= (b as number);
    case 'less-than':
      return num && (a as number) < (b as number);
    case 'less-than-equals':
      return num && (a as number) <= (b as number);
    case 'contains':
      return ka === 'string' && kb === 'string' && (a as string).indexOf(b as string) >= 0;
    case 'array_contains':
      return ka === 'array' && kb !== 'array' && kb !== 'undefined' && inList(a as unknown[], b);
    case 'array_subset':
      return arr && (a as unknown[]).every((x) => inList(b as unknown[], x));
    case 'array_superset':
      return arr && (b as unknown[]).every((x) => inList(a as unknown[], x));
    case 'array_intersect':
      return arr && (a as unknown[]).some((x) => inList(b as unknown[], x));
    default:
      throw new Error(op);
  }
}

function refEval(node: Record<string, unknown>, bag: AttributeBag): boolean {
  return Object.entries(node).every(([key, value]) => {
    if (key === 'allOf') return (value as Record<string, unknown>[]).every((c) => refEval(c, bag));
    if (key === 'anyOf') return (value as Record<string, unknown>[]).some((c) => refEval(c, bag));
    if (key === 'not') return !refEval(value as Record<string, unknown>, bag);
    const [subject, name] = key.split('.') as [keyof AttributeBag, string];
    return Object.entries(value as Record<string, unknown>).every(([op, operand]) => {
      const ref =
        typeof operand === 'object' && operand !== null && 'ref' in operand
          ? String((operand as { ref: string }).ref).split('.')
          : undefined;
      const right = ref ? bag[ref[0] as keyof AttributeBag][ref[1]!] : operand;
      return refCompare(op, bag[subject][name], right);
    });
  });
}

const names = ['a', 'b', 'c'];
const strings = ['eu', 'us', 'e', 'u', ''];
const randomScalar = () => pick([() => Math.floor(rand() * 5), () => pick(strings), () => rand() < 0.5])();
const randomArray = () => Array.from({ length: Math.floor(rand() * 4) }, () => pick([() => pick(strings), () => Math.floor(rand() * 3)])());
const randomValue = (): unknown =>
  rand() < 0.1 ? undefined : rand() < 0.6 ? randomScalar() : rand() < 0.85 ? randomArray() : { k: randomScalar() };
const randomBag = (): AttributeBag => {
  const side = () => Object.fromEntries(names.map((n) => [n, randomValue()]).filter(([, v]) => v !== undefined));
  return { user: side(), resource: side(), tenant: side(), context: side() };
};
const ops = [
  'equals',
  'not-equals',
  'greater-than',
  'greater-than-equals',
  'less-than',
  'less-than-equals',
  'contains',
  'array_contains',
  'array_subset',
  'array_superset',
  'array_intersect',
];
const path = () => `${pick(['user', 'resource', 'tenant', 'context'])}.${pick(names)}`;

function randomRule(depth: number): Record<string, unknown> {
  const r = rand();
  if (depth > 0 && r < 0.2) return { allOf: Array.from({ length: 1 + Math.floor(rand() * 3) }, () => randomRule(depth - 1)) };
  if (depth > 0 && r < 0.4) return { anyOf: Array.from({ length: 1 + Math.floor(rand() * 3) }, () => randomRule(depth - 1)) };
  if (depth > 0 && r < 0.5) return { not: randomRule(depth - 1) };
  const operand = rand() < 0.25 ? { ref: path() } : pick([randomScalar, randomArray])();
  return { [path()]: { [pick(ops)]: operand } };
}

describe('evaluator against a reference evaluator', () => {
  it('agrees on 20,000 random rules over random attributes, and never throws', () => {
    let matches = 0;
    for (let i = 0; i < 20_000; i++) {
      const rule = randomRule(3);
      const bag = randomBag();
      const parsed = parseConditions(rule);
      if (!parsed.ok) throw new Error(`unparsable ${JSON.stringify(rule)}`);
      const got = evaluate(parsed.condition, bag).matched;
      const want = refEval(rule, bag);
      if (got !== want) throw new Error(`disagree on ${JSON.stringify(rule)} over ${JSON.stringify(bag)}: got ${got}, want ${want}`);
      if (got) matches++;
    }
    // Both outcomes are exercised, not a degenerate all-false.
    expect(matches).toBeGreaterThan(2_000);
    expect(matches).toBeLessThan(18_000);
  });
});
