import type { GrantQueries } from '../../../projection-service/grants/query/grant-queries';
import type { CheckRequest } from '../../../projection-service/grants/query/types';
import { ReadCache } from '../../../shared/read-cache';

/**
 * Permission decisions, answered from a ReadCache while the read models stay
 * at one position (see ReadCache for why that is exact). Explanations are
 * never cached: they are for people debugging a decision, not for hot paths.
 */
export class CachedChecks {
  private readonly decisions: ReadCache<boolean>;

  constructor(
    private readonly queries: GrantQueries,
    currentPosition: () => number,
    maxEntries: number,
  ) {
    this.decisions = new ReadCache(currentPosition, maxEntries);
  }

  async allowed(environmentId: string, check: CheckRequest): Promise<boolean> {
    return this.decisions.through(decisionKey(environmentId, check), async () => (await this.queries.check(environmentId, check)).allow);
  }

  /** One decision per check, in order; the cache's misses are decided one after another. */
  async allowedAll(environmentId: string, checks: CheckRequest[]): Promise<boolean[]> {
    const at = this.decisions.positionNow();
    const answers: boolean[] = new Array(checks.length);
    for (let i = 0; i < checks.length; i++) {
      const key = decisionKey(environmentId, checks[i]!);
      const hit = this.decisions.get(key);
      if (hit !== undefined) {
        answers[i] = hit;
        continue;
      }
      answers[i] = (await this.queries.check(environmentId, checks[i]!)).allow;
      this.decisions.set(key, answers[i]!, at);
    }
    return answers;
  }
}

/** Unambiguous (JSON), so two different questions can never share an answer. */
const decisionKey = (environmentId: string, c: CheckRequest): string =>
  JSON.stringify([environmentId, c.user, c.action, c.resource.type, c.resource.key, c.resource.tenant]);
