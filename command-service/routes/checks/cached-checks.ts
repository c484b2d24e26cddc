import type { GrantQueries } from '../../grant-queries/grant-queries';
import type { CheckRequest } from '../../grant-queries/types';
import type { CheckResult } from '../../grant-queries/check';
import { ReadCache } from '../../../shared/read-cache';
import { inChildSpan, type Context, type Span } from '../../../shared/tracing/spans';

/**
 * Permission decisions, answered from a ReadCache while the read models stay
 * at one position (see ReadCache for why that is exact). Explanations are
 * never cached: they are for people debugging a decision, not for hot paths.
 * `fromStore` (a request's `Cache-Control: no-cache`) decides from the read
 * models and leaves the cache as it is.
 */
export class CachedChecks {
  private readonly decisions: ReadCache<CachedDecision>;

  constructor(
    private readonly queries: GrantQueries,
    currentPosition: () => number,
    maxEntries: number,
    /** Counted in place: a hit or a miss per check that looks in the cache (metrics). */
    private readonly lookups: { hits: number; misses: number } = { hits: 0, misses: 0 },
    /** The service's clock: an answer derived from something that ends is kept until that end only (CheckResult.until). */
    private readonly now: () => number = Date.now,
  ) {
    this.decisions = new ReadCache(currentPosition, maxEntries);
  }

  /** A cached decision, unless the end it holds until has come (then it is decided again). */
  private valid(hit: CachedDecision | undefined): boolean | undefined {
    if (hit === undefined || typeof hit === 'boolean') return hit;
    return hit.until > this.now() ? hit.allow : undefined;
  }

  /**
   * `trace`: the traced context this check is asked in, carried explicitly (inChildSpan says why):
   * an express route passes `tracedContext()`, a lane the context it carries; undefined when the
   * check is not traced. No default: a lane's undefined would look the active context up on every
   * untraced check, only to find none.
   */
  allowed(environmentId: string, check: CheckRequest, fromStore: boolean, trace: Context | undefined): Promise<boolean> {
    if (trace === undefined) return this.decide(environmentId, check, fromStore);
    return inChildSpan('check', { attributes: checkAttributes(check) }, trace, async (span, inCheck) => {
      const allow = await this.decide(environmentId, check, fromStore, span, inCheck);
      span.setAttribute('rebac.decision', allow ? 'allow' : 'deny');
      return allow;
    });
  }

  private async decide(environmentId: string, check: CheckRequest, fromStore: boolean, span?: Span, trace?: Context): Promise<boolean> {
    if (fromStore) {
      span?.setAttribute('rebac.cache', 'bypass');
      return this.fromStore(environmentId, check, trace);
    }
    const key = decisionKey(environmentId, check);
    const hit = this.valid(this.decisions.get(key));
    span?.setAttribute('rebac.cache', hit === undefined ? 'miss' : 'hit');
    if (hit !== undefined) {
      this.lookups.hits++;
      return hit;
    }
    this.lookups.misses++;
    const at = this.decisions.positionNow();
    const result = await this.decided(environmentId, check, trace);
    this.decisions.set(key, cachedOf(result), at);
    return result.allow;
  }

  /** One decision per check, in order; the cache's misses are decided one after another. */
  allowedAll(environmentId: string, checks: CheckRequest[], fromStore: boolean, trace: Context | undefined): Promise<boolean[]> {
    if (trace === undefined) return this.decideAll(environmentId, checks, fromStore);
    return inChildSpan('checks', { attributes: { 'rebac.checks': checks.length } }, trace, async (span, inChecks) => {
      const answers = await this.decideAll(environmentId, checks, fromStore, inChecks);
      span.setAttribute('rebac.allowed', answers.filter(Boolean).length);
      return answers;
    });
  }

  private async decideAll(environmentId: string, checks: CheckRequest[], fromStore: boolean, trace?: Context): Promise<boolean[]> {
    const at = this.decisions.positionNow();
    const answers = new Array<boolean>(checks.length);
    for (let i = 0; i < checks.length; i++) {
      const check = checks[i]!;
      const key = fromStore ? null : decisionKey(environmentId, check);
      const hit = key === null ? undefined : this.valid(this.decisions.getAt(key, at));
      if (key !== null) {
        if (hit === undefined) this.lookups.misses++;
        else this.lookups.hits++;
      }
      if (hit !== undefined) {
        answers[i] = hit;
        continue;
      }
      const result = await this.decided(environmentId, check, trace);
      answers[i] = result.allow;
      if (key !== null) this.decisions.set(key, cachedOf(result), at);
    }
    return answers;
  }

  private async fromStore(environmentId: string, check: CheckRequest, trace: Context | undefined): Promise<boolean> {
    return (await this.decided(environmentId, check, trace)).allow;
  }

  private async decided(environmentId: string, check: CheckRequest, trace: Context | undefined): Promise<CheckResult> {
    if (trace === undefined) return this.queries.check(environmentId, check);
    return inChildSpan('grant queries', { attributes: checkAttributes(check) }, trace, async (span) => {
      const result = await this.queries.check(environmentId, check);
      span.setAttribute('rebac.decision', result.allow ? 'allow' : 'deny');
      return result;
    });
  }
}

/**
 * A decision as the cache keeps it: true or false, or for one that holds until an end
 * (CheckResult.until), the answer and that instant in milliseconds.
 */
type CachedDecision = boolean | { allow: boolean; until: number };

const cachedOf = (result: CheckResult): CachedDecision =>
  result.until !== undefined ? { allow: result.allow, until: Date.parse(result.until) } : result.allow;

/** What a check's spans say of it: the question's shape and where it is asked, not who (keys and attributes stay out). */
function checkAttributes(check: CheckRequest): Record<string, string | boolean> {
  return {
    'rebac.check.action': check.action,
    'rebac.check.resource_type': check.resource.type,
    'rebac.check.tenant': check.resource.tenant ?? '',
    'rebac.check.abac': check.abac !== undefined,
  };
}

/**
 * Each part prefixed with its length, so two different questions can never share a key.
 * A check that sends attributes or context (set rules may read them) is cached under
 * exactly those inputs: the same inputs give the same answer at one position.
 */
const decisionKey = (environmentId: string, c: CheckRequest): string => {
  const { type, key, tenant } = c.resource;
  const parts = [environmentId, c.user, c.action, type, key ?? '', tenant ?? '', c.abac ? JSON.stringify(c.abac) : ''];
  let out = `${key === null ? 'n' : 'k'}${tenant === null ? 'n' : 't'}`;
  for (const part of parts) out += `${part.length}:${part}`;
  return out;
};
