import type { ChainStep, Explanation, GrantedBy } from '../api/types';
import { Verdict } from './widgets';

/**
 * How a user holds a role that permits the action, drawn left to right: the
 * user, the assignment, then per derivation step the tuple that links the
 * instances and the rule that carries the role along, ending at the role on
 * the checked resource and the permission it gives.
 */
export function GrantChain({ grant, user, action }: { grant: GrantedBy; user: string; action: string }) {
  if (grant.kind === 'tenant_role') {
    return (
      <ol class="chain" data-testid="chain">
        <Node kind="user" title={user} />
        <Link kind="assignment" label="assigned (tenant role)" detail={`assignment ${grant.assignment_id.slice(0, 8)}`} />
        <Node kind="role" title={`${grant.role}`} sub={`in tenant ${grant.tenant}`} />
        <Link kind="permission" label="permits" detail={grant.permission} />
        <Node kind="action" title={action} />
      </ol>
    );
  }
  return (
    <ol class="chain" data-testid="chain">
      <Node kind="user" title={user} />
      {grant.chain.map((step, i) => (
        <Step key={i} step={step} />
      ))}
      <Link kind="permission" label="permits" detail={grant.permissions.join(', ')} />
      <Node kind="action" title={action} sub={`on ${grant.resource_instance}`} />
    </ol>
  );
}

function Step({ step }: { step: ChainStep }) {
  switch (step.step) {
    case 'role_assignment':
      return (
        <>
          <Link kind="assignment" label="role assignment" detail={`${step.role} on ${step.resource_instance}`} />
          <Node kind="role" title={`${step.role}`} sub={`on ${step.resource_instance}`} />
        </>
      );
    case 'role_derivation':
      return (
        <>
          <Link
            kind="tuple"
            label={`tuple ${step.tuple.subject} —${step.tuple.relation}→ ${step.tuple.object}`}
            detail={`rule: ${step.rule.on_resource}#${step.rule.role} ⇒ ${step.resource_instance.split(':')[0]}#${step.role} via ${step.rule.linked_by_relation}`}
          />
          <Node kind="role" title={`${step.role}`} sub={`on ${step.resource_instance}`} />
        </>
      );
    default:
      return <Link kind="missing" label="missing support" detail={step.grant_id} />;
  }
}

function Node({ kind, title, sub }: { kind: string; title: string; sub?: string }) {
  return (
    <li class={`chain-node ${kind}`}>
      <span class="chain-kind">{kind}</span>
      <strong>{title}</strong>
      {sub ? <small>{sub}</small> : null}
    </li>
  );
}

function Link({ kind, label, detail }: { kind: string; label: string; detail?: string }) {
  return (
    <li class={`chain-link ${kind}`}>
      <span class="arrow">→</span>
      <span class="chain-label">{label}</span>
      {detail ? <small>{detail}</small> : null}
    </li>
  );
}

/** A check's explanation: the verdict, the summary, each permitting role's chain, or on deny the roles held. */
export function ExplanationView({ explanation, user, action }: { explanation: Explanation; user: string; action: string }) {
  return (
    <div class="explanation">
      <p>
        <Verdict allow={explanation.decision === 'allow'} /> <span data-testid="summary">{explanation.summary}</span>
      </p>
      {explanation.granted_by.map((g, i) => (
        <GrantChain key={i} grant={g} user={user} action={action} />
      ))}
      {explanation.decision === 'deny' && explanation.roles_held.length > 0 ? (
        <p class="muted">
          Roles held here, none permitting '{action}':{' '}
          {explanation.roles_held.map((r) => `${r.role} (${r.permissions.join(', ') || 'no permissions'})`).join('; ')}
        </p>
      ) : null}
      {!explanation.resource.instance_found && explanation.resource.key !== null ? (
        <p class="muted">No instance {`${explanation.resource.type}:${explanation.resource.key}`} exists.</p>
      ) : null}
    </div>
  );
}
