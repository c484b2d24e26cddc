import type { AssertionDefinition } from '../../shared/events';
import type { GrantQueries } from '../grant-queries/grant-queries';
import type { CheckRequest } from '../grant-queries/types';
import { abacInputs } from '../routes/checks/abac-inputs';
import { presentAssertion, type RunReport } from './api-shape';

/** The check an assertion asks, as `POST /allowed` would ask it (its attributes and context for set rules included). */
export function checkOf(a: AssertionDefinition): CheckRequest {
  const abac = abacInputs({ user: a.userAttributes, resource: a.resource.attributes, context: a.context });
  const question: CheckRequest = {
    user: a.user,
    action: a.action,
    resource: { type: a.resource.type, key: a.resource.key, tenant: a.resource.tenant },
  };
  if (abac) question.abac = abac;
  return question;
}

/** Each assertion's answer over `queries` (one position), against the answer it expects. */
export async function runAssertions(
  queries: GrantQueries,
  environmentId: string,
  assertions: AssertionDefinition[],
  position: number,
): Promise<RunReport> {
  const results: RunReport['results'] = [];
  for (const a of assertions) {
    const { allow } = await queries.check(environmentId, checkOf(a));
    const actual = allow ? 'allow' : 'deny';
    results.push({ assertion: presentAssertion(a), expected: a.expected, actual, passed: actual === a.expected });
  }
  const failed = results.filter((r) => !r.passed).length;
  return { passed: failed === 0, position, total: results.length, failed, results };
}
