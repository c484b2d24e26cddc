import type { ChainStep, Explanation, GrantedBy, SetRuleTrace } from '../api/types';
import { JsonView, Verdict } from './widgets';

/**
 * How a user is granted the action, drawn left to right. A resource role: the
 * user, the assignment, then per derivation step the tuple that links the
 * instances and the rule that carries the role along, ending at the role on
 * the checked resource and the permission it gives. A tenant role: the
 * assignment and the role. A set rule: the user set the user is in, the rule,
 * the resource set the resource is in, and the conditions that matched. A
 * kind this console does not know is shown as the API sent it.
 */
export function GrantChain({ grant, user, action, traces }: { grant: GrantedBy; user: string; action: string; traces?: SetRuleTrace[] }) {
  switch (grant.kind) {
    case 'tenant_role':
      return (
        <ol class="chain" data-testid="chain" data-kind={grant.kind}>
          <Node kind="user" title={user} />
          <Link kind="assignment" label="assigned (tenant role)" detail={`assignment ${grant.assignment_id}`} />
          <Node kind="role" title={`${grant.role}`} sub={`in tenant ${grant.tenant}`} />
          <Link kind="permission" label="permits" detail={grant.permission} />
          <Node kind="action" title={action} />
        </ol>
      );
    case 'resource_role':
      return (
        <ol class="chain" data-testid="chain" data-kind={grant.kind}>
          <Node kind="user" title={user} />
          {(grant.chain ?? []).map((step, i) => (
            <Step key={i} step={step} />
          ))}
          <Link kind="permission" label="permits" detail={(grant.permissions ?? []).join(', ')} />
          <Node kind="action" title={action} sub={`on ${grant.resource_instance}`} />
        </ol>
      );
    case 'set_rule':
      return <SetRuleChain grant={grant} user={user} action={action} trace={traces?.find((t) => t.set_rule === grant.set_rule)} />;
    default:
      return <UnknownGrant grant={grant} />;
  }
}

/** A set rule (ABAC): the user in the user set, the rule, the resource in the resource set; then each condition as evaluated. */
function SetRuleChain(props: { grant: Extract<GrantedBy, { kind: 'set_rule' }>; user: string; action: string; trace?: SetRuleTrace }) {
  const { grant, trace } = props;
  return (
    <div class="set-rule" data-testid="set-rule" data-set-rule={grant.set_rule}>
      <ol class="chain" data-testid="chain" data-kind={grant.kind}>
        <Node kind="user" title={props.user} />
        <Link kind="condition" label="in user set" />
        <Node kind="user set" title={grant.user_set} />
        <Link kind="rule" label="set rule" detail={`${grant.set_rule}: grants ${grant.permission}`} />
        <Node kind="resource set" title={grant.resource_set} />
        <Link kind="permission" label="permits" detail={grant.permission} />
        <Node kind="action" title={props.action} />
      </ol>
      {trace && trace.conditions.length > 0 ? (
        <ConditionList conditions={trace.conditions} />
      ) : (
        <p class="muted">No conditions: every user of the user set, on every resource of the resource set.</p>
      )}
    </div>
  );
}

/** Each comparison of a set rule's conditions as evaluated, with the set it belongs to and why it failed. */
function ConditionList({ conditions }: { conditions: SetRuleTrace['conditions'] }) {
  return (
    <ul class="conditions" data-testid="set-rule-conditions">
      {conditions.map((c, i) => (
        <li key={i} class={c.matched ? 'matched' : 'unmatched'}>
          {c.matched ? '✓' : '✗'} <span class="muted">{c.set}:</span> <code>{c.condition}</code>
          {c.reason ? <small> ({c.reason})</small> : null}
        </li>
      ))}
    </ul>
  );
}

/** On deny: the set rules that grant the permission, and why none matched. */
function UnmatchedSetRules({ traces }: { traces: SetRuleTrace[] }) {
  return (
    <div class="muted" data-testid="unmatched-set-rules">
      Set rules granting it, none matching:
      {traces.map((t) => (
        <div key={t.set_rule}>
          <code>{t.set_rule}</code> (user set {t.user_set} {t.user_set_matched ? '✓' : '✗'}, resource set {t.resource_set}{' '}
          {t.resource_set_matched ? '✓' : t.user_set_matched ? '✗' : 'not evaluated'})
          {t.conditions.length > 0 ? <ConditionList conditions={t.conditions} /> : null}
        </div>
      ))}
    </div>
  );
}

/** A grant of a kind this console was not built for: named and shown whole, never a broken page. */
function UnknownGrant({ grant }: { grant: { kind: string } }) {
  return (
    <div class="chain unknown" data-testid="chain" data-kind={grant.kind}>
      <span class="muted">granted by a {String(grant.kind)}:</span> <JsonView value={grant} />
    </div>
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
    case 'missing_support':
      return <Link kind="missing" label="missing support" detail={step.grant_id} />;
    default:
      return <Link kind="unknown" label={`step ${String((step as { step?: unknown }).step)}`} detail={JSON.stringify(step)} />;
  }
}

function Node({ kind, title, sub }: { kind: string; title: string; sub?: string }) {
  return (
    <li class={`chain-node ${kind.replace(/ /g, '-')}`}>
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
        <GrantChain key={i} grant={g} user={user} action={action} traces={explanation.set_rules} />
      ))}
      {explanation.decision === 'deny' && explanation.roles_held.length > 0 ? (
        <p class="muted">
          Roles held here, none permitting '{action}':{' '}
          {explanation.roles_held.map((r) => `${r.role} (${r.permissions.join(', ') || 'no permissions'})`).join('; ')}
        </p>
      ) : null}
      {explanation.decision === 'deny' && explanation.set_rules?.length ? <UnmatchedSetRules traces={explanation.set_rules} /> : null}
      {!explanation.resource.instance_found && explanation.resource.key !== null ? (
        <p class="muted">No instance {`${explanation.resource.type}:${explanation.resource.key}`} exists.</p>
      ) : null}
    </div>
  );
}
