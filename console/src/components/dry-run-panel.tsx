import { useState } from 'preact/hooks';
import { parseEdits, type AssertionsApi, type DryRunReport } from '../api/assertions';
import { ErrorNote, Field } from './widgets';

/**
 * The dry run of a model edit: the requests typed in (the API's own, as JSON) are made on a
 * scratch copy of the environment, never on it; shown are the assertions whose answer they
 * flip and the decisions of a sample of users × resources they change.
 */
export function DryRunPanel({ api, schemaPath }: { api: AssertionsApi; schemaPath: string }) {
  const [edits, setEdits] = useState('');
  const [users, setUsers] = useState(20);
  const [resources, setResources] = useState(20);
  const [report, setReport] = useState<DryRunReport | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const example = JSON.stringify([{ method: 'PATCH', path: `${schemaPath}/resources/file/roles/editor`, body: { permissions: ['read'] } }]);

  const run = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setReport(null);
    setBusy(true);
    try {
      setReport(await api.dryRun(parseEdits(edits), { users, resources }));
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="card" data-testid="dry-run">
      <h3>Dry run of a model edit</h3>
      <p class="muted">
        Requests of this environment's schema or facts API, as a JSON array of <code>{'{method, path, body}'}</code>, made in order on a
        scratch copy: the environment itself is not changed.
      </p>
      <form onSubmit={(e) => void run(e)}>
        <Field label="edits (JSON)">
          <textarea
            name="dry-run-edits"
            rows={4}
            cols={100}
            placeholder={example}
            value={edits}
            onInput={(e) => setEdits(e.currentTarget.value)}
          />
        </Field>
        <div class="filters">
          <Field label="sample users (first by key)">
            <input
              name="dry-run-users"
              type="number"
              min={0}
              max={100}
              value={users}
              onInput={(e) => setUsers(Number(e.currentTarget.value))}
            />
          </Field>
          <Field label="sample resources (first by key)">
            <input
              name="dry-run-resources"
              type="number"
              min={0}
              max={100}
              value={resources}
              onInput={(e) => setResources(Number(e.currentTarget.value))}
            />
          </Field>
          <button type="submit" name="dry-run" disabled={busy || edits.trim() === ''}>
            {busy ? 'Running…' : 'Dry run'}
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
      {report ? <DryRunResult report={report} /> : null}
    </div>
  );
}

function DryRunResult({ report }: { report: DryRunReport }) {
  const { flipped, total } = report.assertions;
  const { sample, changed } = report.decisions;
  return (
    <div data-testid="dry-run-result">
      <p>
        On a copy taken at position {report.position}: {report.edits.map((e) => `${e.method} ${e.path} → ${e.status}`).join('; ')}.
      </p>
      <h4 data-testid="dry-run-flipped-summary">
        {flipped.length} of {total} assertions would flip
      </h4>
      {flipped.length ? (
        <table class="data" data-testid="dry-run-flipped">
          <thead>
            <tr>
              <th>assertion</th>
              <th>expected</th>
              <th>now</th>
              <th>after the edit</th>
              <th>would</th>
            </tr>
          </thead>
          <tbody>
            {flipped.map((f) => (
              <tr key={f.assertion.id} data-testid="flipped-row">
                <td>
                  {f.assertion.name ??
                    `${f.assertion.user.key} ${f.assertion.action} ${f.assertion.resource.type}:${f.assertion.resource.key ?? '*'}`}
                </td>
                <td>{f.expected}</td>
                <td>{f.before}</td>
                <td>{f.after}</td>
                <td>
                  <span class={`verdict ${f.passes_after ? 'allow' : 'deny'}`}>{f.passes_after ? 'PASS' : 'FAIL'}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <h4 data-testid="dry-run-changed-summary">
        {changed.length} of {sample.checks} sampled decisions would change ({sample.users.length} users × {sample.resources.length}{' '}
        resources
        {sample.truncated ? ', cut at the bound' : ''})
      </h4>
      {changed.length ? (
        <table class="data" data-testid="dry-run-changed">
          <thead>
            <tr>
              <th>user</th>
              <th>action</th>
              <th>resource</th>
              <th>tenant</th>
              <th>now → after</th>
            </tr>
          </thead>
          <tbody>
            {changed.map((c) => (
              <tr key={`${c.user} ${c.action} ${c.resource} ${c.tenant}`} data-testid="changed-row">
                <td class="mono">{c.user}</td>
                <td class="mono">{c.action}</td>
                <td class="mono">{c.resource}</td>
                <td class="mono">{c.tenant}</td>
                <td>
                  {c.before} → {c.after}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
