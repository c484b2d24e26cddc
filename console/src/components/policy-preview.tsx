import { useState } from 'preact/hooks';
import type { Api } from '../api/client';
import { applyEdit, changedFields, EditRefused, type Edit } from '../api/policy';

/** Longest reason (the header takes 4 KiB of JSON; escapes of non-ASCII text take six bytes a character). */
const MAX_REASON = 500;

const pretty = (value: unknown) => (value === null ? '(absent)' : JSON.stringify(value, null, 2));

/**
 * An edit before it is sent: its HTTP calls with their bodies, the affected
 * object before → after, and a reason that goes out as `X-Audit-Metadata`.
 * A refusal shows the API's message as sent, and says whether any call of the
 * edit stayed applied (none, unless taking one back failed).
 */
export function ChangePreview(props: { api: Api; edit: Edit; onApplied: (position: number | null) => void; onCancel: () => void }) {
  const { edit } = props;
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [refused, setRefused] = useState<{ message: string; status: number | null; leftApplied: string[] } | null>(null);
  const apply = async () => {
    setBusy(true);
    setRefused(null);
    try {
      props.onApplied(await applyEdit(props.api, edit, reason));
    } catch (error) {
      if (error instanceof EditRefused) {
        setRefused({
          message: error.message,
          status: error.error.status,
          leftApplied: error.leftApplied.map((c) => `${c.method} ${c.path}`),
        });
      } else setRefused({ message: error instanceof Error ? error.message : String(error), status: null, leftApplied: [] });
    } finally {
      setBusy(false);
    }
  };
  const changes = changedFields(edit.before, edit.after);
  return (
    <div class="policy-preview card" role="dialog" aria-label="Review the change" data-testid="change-preview">
      <h3>{edit.title}</h3>
      <p class="muted">Sent to the API as:</p>
      <ol class="policy-calls" data-testid="preview-calls">
        {edit.calls.map((call, i) => (
          <li key={i}>
            <code>
              {call.method} {call.path}
            </code>
            {call.body !== undefined ? <pre class="json">{JSON.stringify(call.body, null, 2)}</pre> : null}
          </li>
        ))}
      </ol>
      {edit.calls.length > 1 ? <p class="muted">If the API refuses one of these calls, the ones before it are taken back.</p> : null}
      {edit.before !== null && edit.after !== null && changes.length > 0 ? (
        <ul class="policy-changes" data-testid="preview-changes">
          {changes.map((c) => (
            <li key={c.field}>
              <strong>{c.field}</strong>: <code>{JSON.stringify(c.before) ?? '—'}</code> → <code>{JSON.stringify(c.after) ?? '—'}</code>
            </li>
          ))}
        </ul>
      ) : null}
      <div class="policy-before-after">
        <div>
          <span class="muted">before</span>
          <pre class="json" data-testid="preview-before">
            {pretty(edit.before)}
          </pre>
        </div>
        <div>
          <span class="muted">after</span>
          <pre class="json" data-testid="preview-after">
            {pretty(edit.after)}
          </pre>
        </div>
      </div>
      <label class="field policy-reason">
        <span>Reason (optional; kept in the audit log as audit_metadata.reason)</span>
        <input
          name="reason"
          maxLength={MAX_REASON}
          value={reason}
          placeholder="e.g. TICKET-123: legal may read contracts"
          onInput={(e) => setReason(e.currentTarget.value)}
        />
      </label>
      <div class="policy-buttons">
        <button type="button" name="apply-edit" disabled={busy} onClick={() => void apply()}>
          {busy ? 'Sending…' : 'Apply'}
        </button>
        <button type="button" class="link" disabled={busy} onClick={props.onCancel}>
          cancel
        </button>
      </div>
      {refused ? (
        <div class="error" role="alert" data-testid="edit-refused">
          <p>
            Refused{refused.status !== null ? ` (${refused.status})` : ''}: <span data-testid="api-message">{refused.message}</span>
          </p>
          <p>
            {refused.status === null
              ? 'The request may not have reached the service: reload to see the model as it is.'
              : refused.leftApplied.length === 0
                ? 'Nothing was changed.'
                : `Applied and not taken back: ${refused.leftApplied.join('; ')} (reload to see the model as it is).`}
          </p>
        </div>
      ) : null}
    </div>
  );
}
