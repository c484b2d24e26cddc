import type { GrantReads } from './types';
import type { GrantDoc } from '../../shared/read-models/grants/model';

/** One link of the chain that produces a grant, root (the assignment) first. */
export type ChainStep =
  | { step: 'role_assignment'; assignment_id: string; user: string; role: string; resource_instance: string; tenant: string }
  | {
      step: 'role_derivation';
      /** The role this step gives, on the tuple's object. */
      role: string;
      resource_instance: string;
      /** The role held on the tuple's subject that this step starts from. */
      from: { role: string; resource_instance: string };
      tuple: { subject: string; relation: string; object: string };
      rule: { role: string; on_resource: string; linked_by_relation: string };
    }
  /** Should not happen (reasons always point to an older grant); reported rather than hidden. */
  | { step: 'missing_support'; grant_id: string };

/** Longest chain walked; far beyond any real schema's derivation depth. */
const MAX_STEPS = 10_000;

/**
 * Walks a grant's stored reasons back to the assignment it comes from. Each
 * reason points to a grant derived earlier, so the walk ends; it is still
 * bounded and cycle-checked, so a damaged read model cannot hang a request.
 */
export async function derivationChain(grants: GrantReads, grant: GrantDoc): Promise<ChainStep[]> {
  const steps: ChainStep[] = [];
  const seen = new Set<string>();
  let current: GrantDoc | null = grant;
  while (current && steps.length < MAX_STEPS && !seen.has(current.id)) {
    seen.add(current.id);
    const reason: GrantDoc['reason'] = current.reason;
    if (reason.kind === 'assignment') {
      steps.push({
        step: 'role_assignment',
        assignment_id: reason.assignment_id,
        user: current.user,
        role: current.role,
        resource_instance: current.instance,
        tenant: current.tenant,
      });
      return steps.reverse();
    }
    steps.push({
      step: 'role_derivation',
      role: current.role,
      resource_instance: current.instance,
      from: { role: reason.rule.role, resource_instance: reason.tuple.subject },
      tuple: { subject: reason.tuple.subject, relation: reason.tuple.relation, object: reason.tuple.object },
      rule: { role: reason.rule.role, on_resource: reason.rule.onResource, linked_by_relation: reason.rule.relation },
    });
    const parent: GrantDoc | null = await grants.grants.get(reason.from_grant);
    if (!parent) steps.push({ step: 'missing_support', grant_id: reason.from_grant });
    current = parent;
  }
  return steps.reverse();
}
