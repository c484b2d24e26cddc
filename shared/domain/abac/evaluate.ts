import { pathText, type AttributePath, type Condition, type Subject } from './conditions';
import { compare } from './operators';

/** The attributes a check evaluates conditions over, by subject (`user.age` is attributes.user.age). */
export type AttributeBag = Record<Subject, Readonly<Record<string, unknown>>>;

/** One comparison as evaluated, for explain: `user.age greater-than 18`, and why it failed if it did. */
export interface ComparisonTrace {
  condition: string;
  matched: boolean;
  reason?: string;
}

export interface Evaluation {
  matched: boolean;
  /** Every comparison evaluated, in order (allOf stops at the first failure, anyOf at the first match). */
  trace: ComparisonTrace[];
}

const own = (record: Readonly<Record<string, unknown>>, name: string) =>
  Object.prototype.hasOwnProperty.call(record, name) ? record[name] : undefined;

export const lookup = (bag: AttributeBag, path: AttributePath): unknown => own(bag[path.subject], path.name);

/** Evaluates a condition tree over a bag of attributes. Pure, and never throws on any attribute values. */
export function evaluate(condition: Condition, bag: AttributeBag): Evaluation {
  const trace: ComparisonTrace[] = [];
  return { matched: run(condition, bag, trace), trace };
}

function run(condition: Condition, bag: AttributeBag, trace: ComparisonTrace[]): boolean {
  switch (condition.kind) {
    case 'allOf':
      return condition.of.every((c) => run(c, bag, trace));
    case 'anyOf':
      return condition.of.some((c) => run(c, bag, trace));
    case 'not':
      return !run(condition.of, bag, trace);
    case 'compare': {
      const { attribute, operator, operand } = condition;
      const right = operand.kind === 'ref' ? lookup(bag, operand.path) : operand.value;
      const rightText = operand.kind === 'ref' ? `ref ${pathText(operand.path)}` : JSON.stringify(operand.value);
      const outcome = compare(operator, lookup(bag, attribute), right);
      const entry: ComparisonTrace = { condition: `${pathText(attribute)} ${operator} ${rightText}`, matched: outcome.matched };
      if (!outcome.matched && outcome.reason) entry.reason = outcome.reason;
      trace.push(entry);
      return outcome.matched;
    }
  }
}

/** Every attribute path a condition reads (its attributes and references), for deciding what a cached answer depends on. */
export function pathsOf(condition: Condition, out: AttributePath[] = []): AttributePath[] {
  if (condition.kind === 'compare') {
    out.push(condition.attribute);
    if (condition.operand.kind === 'ref') out.push(condition.operand.path);
  } else if (condition.kind === 'not') pathsOf(condition.of, out);
  else for (const c of condition.of) pathsOf(c, out);
  return out;
}
