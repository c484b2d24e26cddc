import type { AttributeChange, DecisionChange, DecisionHistory, GrantedBy } from '../api/types';
import type { Question } from '../queries';
import { dataSummary } from '../queries';
import { ExplanationView } from './chain';
import { JsonView, Verdict, time } from './widgets';

/** One grant gained or lost, in words; a kind this console does not know is named by its kind. */
export function grantText(g: GrantedBy): string {
  switch (g.kind) {
    case 'tenant_role':
      return `${g.role} in tenant ${g.tenant}`;
    case 'resource_role':
      return `${g.role} on ${g.resource_instance}`;
    case 'set_rule':
      return `set rule ${g.set_rule}: user set ${g.user_set} → ${g.permission} on resource set ${g.resource_set}`;
    default:
      return `a ${String((g as { kind?: unknown }).kind)}`;
  }
}

/** `api_key:ci-deployer` (a key without a name: its id, in full); an older service sent the key id alone. */
function actorText(actor: DecisionChange['event']['actor']): string {
  if (actor === null) return 'system';
  if (typeof actor === 'string') return `api_key:${actor}`;
  return actor.id === null ? actor.type : `${actor.type}:${actor.name || actor.id}`;
}

const valueText = (present: boolean, value: unknown) => (!present ? '(unset)' : typeof value === 'string' ? value : JSON.stringify(value));

/** `department: legal → finance` (strings bare, other values as JSON, a side without the attribute as "(unset)"). */
export const attributeChangeText = (c: AttributeChange): string =>
  `${c.attribute}: ${valueText('before' in c, c.before)} → ${valueText('after' in c, c.after)}`;

/**
 * `POST /allowed/history` drawn: the answer at the start of the range, then
 * each change with its position, time, the roles gained and lost, and the
 * event that caused it (type, actor, request id, data). A band across the
 * positions shows when the answer was allow or deny.
 */
export function DecisionHistoryView(props: {
  history: DecisionHistory;
  question: Question;
  onPick: (position: number) => void;
  go: (hash: string) => void;
}) {
  const { history, question } = props;
  const start = history.initial.position;
  // The band runs a little past the end of the range, so the answer now shows even when it changed at the very end.
  const end = history.until.position + Math.max(1, Math.round((history.until.position - start) * 0.05));
  const spans: Array<{ from: number; to: number; allow: boolean }> = [];
  let from = start;
  let allow = history.initial.allow;
  for (const c of history.changes) {
    spans.push({ from, to: c.position, allow });
    from = c.position;
    allow = c.allow;
  }
  spans.push({ from, to: end, allow });
  const x = (p: number) => ((p - start) / (end - start)) * 100;
  const target = question.resource.key ? `${question.resource.type}:${question.resource.key}` : question.resource.type;
  return (
    <div class="history">
      <p>
        May <code>{question.user}</code> <code>{question.action}</code> <code>{target}</code>? From position {start} to{' '}
        {history.until.position}: {history.changes.length} change(s).
      </p>
      <div class="band" aria-hidden="true">
        {spans.map((s, i) => (
          <span
            key={i}
            class={s.allow ? 'allow' : 'deny'}
            style={{ left: `${x(s.from)}%`, width: `${Math.max(0.5, x(s.to) - x(s.from))}%` }}
          />
        ))}
      </div>
      <ol class="changes">
        <li>
          <span class="pos">{start}</span> <Verdict allow={history.initial.allow} /> <span class="muted">at the start of the range</span>
        </li>
        {history.changes.map((c) => (
          <li key={c.position} data-testid="history-change" data-allow={String(c.allow)} data-position={c.position}>
            <div>
              <button type="button" class="link pos" title="check as of this position" onClick={() => props.onPick(c.position)}>
                {c.position}
              </button>{' '}
              <Verdict allow={c.allow} /> <span class="muted">{time(c.time)}</span> <strong>{c.event.type}</strong>
              {c.decision_changed ? '' : <span class="muted"> (decision unchanged)</span>}
            </div>
            <div class="cause">{c.cause.summary}</div>
            {c.attribute_changes?.length ? (
              <ul class="attribute-changes" data-testid="attribute-changes">
                {c.attribute_changes.map((a) => (
                  <li key={`${a.of} ${a.key} ${a.attribute}`}>
                    <span class="muted">
                      {a.of} {a.key} ·
                    </span>{' '}
                    <code>{attributeChangeText(a)}</code>
                  </li>
                ))}
              </ul>
            ) : null}
            {c.roles_gained.length ? <div class="gained">+ {c.roles_gained.map(grantText).join('; ')}</div> : null}
            {c.roles_lost.length ? <div class="lost">− {c.roles_lost.map(grantText).join('; ')}</div> : null}
            <div class="meta">
              actor <code data-testid="history-actor">{actorText(c.event.actor)}</code> · request{' '}
              {c.event.request_id ? (
                <a href={`#/timeline?request_id=${encodeURIComponent(c.event.request_id)}`}>
                  <code>{c.event.request_id}</code>
                </a>
              ) : (
                '—'
              )}
              {c.event.audit_metadata !== undefined && c.event.audit_metadata !== null ? (
                <>
                  {' '}
                  · metadata <JsonView value={c.event.audit_metadata} />
                </>
              ) : null}{' '}
              · <span class="summary">{dataSummary(c.event.data ?? {})}</span> <JsonView value={c.event.data} collapsed />
            </div>
            <details>
              <summary>explanation after it</summary>
              <ExplanationView explanation={c.explanation} user={question.user} action={question.action} />
            </details>
          </li>
        ))}
      </ol>
    </div>
  );
}
