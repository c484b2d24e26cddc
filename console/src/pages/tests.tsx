import { useEffect, useMemo, useState } from 'preact/hooks';
import {
  AssertionsApi,
  parseAsOf,
  resourceText,
  type Assertion,
  type AssertionInput,
  type AssertionResult,
  type ImportAnswer,
  type ImportMode,
  type RunReport,
} from '../api/assertions';
import { AssertionForm } from '../components/assertion-form';
import { DryRunPanel } from '../components/dry-run-panel';
import { ErrorNote, Field, TextInput } from '../components/widgets';
import { schemaPath, type Ctx } from '../context';

/**
 * Saved assertions of the environment (docs/assertions.md): list, add, change
 * and delete them, run them now or as of a past position or ISO time (pass or
 * fail per row, the answer got beside the one expected), and keep them as a
 * file: export downloads it, import replaces or merges it. The dry run of a model edit shows what
 * a proposed edit would flip, computed on a scratch copy.
 */
export function TestsPage({ ctx }: { ctx: Ctx }) {
  const api = useMemo(() => new AssertionsApi(ctx.api, schemaPath(ctx)), [ctx.api, ctx.proj, ctx.env]);
  const [assertions, setAssertions] = useState<Assertion[] | null>(null);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [report, setReport] = useState<{ value: RunReport; asOf: string } | null>(null);
  const [error, setError] = useState<Error | null>(null);

  const reload = async () => {
    try {
      setAssertions(await api.list());
    } catch (err) {
      setError(err as Error);
    }
  };
  useEffect(() => {
    setAssertions(null);
    setReport(null);
    void reload();
  }, [api]);

  const create = async (input: AssertionInput) => {
    await api.create(input);
    setAdding(false);
    await reload();
  };
  const update = (id: string) => async (input: AssertionInput) => {
    await api.update(id, input);
    setEditing(null);
    await reload();
  };
  const remove = async (a: Assertion) => {
    if (!confirm(`Delete the assertion ${a.name ?? a.id}?`)) return;
    setError(null);
    try {
      await api.remove(a.id);
      await reload();
    } catch (err) {
      setError(err as Error);
    }
  };

  return (
    <section>
      <h2>Tests</h2>
      <p class="muted">
        Saved assertions: a check and the answer it is expected to get. CI runs them with{' '}
        <code>POST …/assertions/run?fail_on_mismatch=true</code> (docs/assertions.md).
      </p>
      <RunBar api={api} onReport={setReport} />
      {adding ? (
        <AssertionForm submitLabel="Save the assertion" onSubmit={create} onCancel={() => setAdding(false)} />
      ) : (
        <button type="button" name="add-assertion" onClick={() => setAdding(true)}>
          Add an assertion
        </button>
      )}
      <ErrorNote error={error} />
      {assertions === null ? (
        <p class="muted">Loading the assertions…</p>
      ) : assertions.length === 0 ? (
        <p class="muted" data-testid="no-assertions">
          No assertions in this environment yet.
        </p>
      ) : (
        <AssertionTable
          assertions={assertions}
          report={report?.value ?? null}
          editing={editing}
          onEdit={setEditing}
          onUpdate={update}
          onDelete={(a) => void remove(a)}
        />
      )}
      <FileBar api={api} onImported={(answer) => (setAssertions(answer.assertions), setReport(null))} />
      <DryRunPanel api={api} schemaPath={schemaPath(ctx)} />
    </section>
  );
}

/** Runs every assertion, now or as of the position or time typed in. */
function RunBar({ api, onReport }: { api: AssertionsApi; onReport: (r: { value: RunReport; asOf: string } | null) => void }) {
  const [asOf, setAsOf] = useState('');
  const [report, setReport] = useState<{ value: RunReport; asOf: string } | null>(null);
  // Numbers the runs, so that a run answering as the previous one did is still seen to be new.
  const [runs, setRuns] = useState(0);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const at = parseAsOf(asOf);
      const value = await api.run(at);
      const next = { value, asOf: at === null ? '' : String(at) };
      setReport(next);
      setRuns((n) => n + 1);
      onReport(next);
    } catch (err) {
      setReport(null);
      onReport(null);
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="filters" onSubmit={(e) => void run(e)}>
      <TextInput label="as of (position or ISO date-time)" name="run-as-of" value={asOf} onChange={setAsOf} placeholder="(now)" />
      <button type="submit" name="run-assertions" disabled={busy}>
        Run
      </button>
      {report ? (
        <span data-testid="run-summary" data-run={runs} class={report.value.passed ? 'run-passed' : 'run-failed'}>
          {report.value.passed ? 'passed' : 'failed'}: {report.value.total - report.value.failed} of {report.value.total} passed at position{' '}
          {report.value.position}
          {report.asOf ? ` (as of ${report.asOf})` : ' (now)'}
        </span>
      ) : null}
      <ErrorNote error={error} />
    </form>
  );
}

/** The result of `a` in the run, unless the assertion changed after it (then that run says nothing of it). */
function resultOf(a: Assertion, report: RunReport | null): AssertionResult | null {
  const r = report?.results.find((x) => x.assertion.id === a.id);
  return r && JSON.stringify(r.assertion) === JSON.stringify(a) ? r : null;
}

function AssertionTable(props: {
  assertions: Assertion[];
  report: RunReport | null;
  editing: string | null;
  onEdit: (id: string | null) => void;
  onUpdate: (id: string) => (input: AssertionInput) => Promise<void>;
  onDelete: (a: Assertion) => void;
}) {
  return (
    <table class="data" data-testid="assertions">
      <thead>
        <tr>
          <th>name</th>
          <th>user</th>
          <th>action</th>
          <th>resource</th>
          <th>expected</th>
          <th>actual</th>
          <th>result</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {props.assertions.map((a) => {
          const r = resultOf(a, props.report);
          const state = r === null ? 'not-run' : r.passed ? 'passed' : 'failed';
          if (props.editing === a.id)
            return (
              <tr key={a.id}>
                <td colSpan={8}>
                  <AssertionForm
                    initial={a}
                    submitLabel="Save the change"
                    onSubmit={props.onUpdate(a.id)}
                    onCancel={() => props.onEdit(null)}
                  />
                </td>
              </tr>
            );
          return (
            <tr key={a.id} data-testid="assertion-row" data-id={a.id} data-result={state} class={`assertion ${state}`}>
              <td>{a.name ?? <span class="muted">—</span>}</td>
              <td class="mono">
                {a.user.key}
                {a.user.attributes ? <small class="muted"> {JSON.stringify(a.user.attributes)}</small> : null}
              </td>
              <td class="mono">{a.action}</td>
              <td class="mono">
                {resourceText(a.resource)}
                {a.resource.tenant ? <small class="muted"> in {a.resource.tenant}</small> : null}
              </td>
              <td data-testid="expected">{a.expected}</td>
              <td data-testid="actual">{r ? r.actual : <span class="muted">—</span>}</td>
              <td data-testid="result">
                {r === null ? (
                  <span class="muted">not run</span>
                ) : (
                  <span class={`verdict ${r.passed ? 'allow' : 'deny'}`}>{r.passed ? 'PASS' : 'FAIL'}</span>
                )}
              </td>
              <td class="actions">
                <button type="button" class="link" name="edit-assertion" onClick={() => props.onEdit(a.id)}>
                  edit
                </button>
                <button type="button" class="link danger" name="delete-assertion" onClick={() => props.onDelete(a)}>
                  delete
                </button>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Export downloads the file (`assertions.json`); import sends a chosen file, replacing or merging. */
function FileBar({ api, onImported }: { api: AssertionsApi; onImported: (answer: ImportAnswer) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [mode, setMode] = useState<ImportMode>('replace');
  const [answer, setAnswer] = useState<ImportAnswer | null>(null);
  const [error, setError] = useState<Error | null>(null);

  const exportFile = async () => {
    setError(null);
    try {
      const content = await api.exportFile();
      const url = URL.createObjectURL(new Blob([`${JSON.stringify(content, null, 2)}\n`], { type: 'application/json' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = 'assertions.json';
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      setError(err as Error);
    }
  };

  const importFile = async (e: Event) => {
    e.preventDefault();
    if (!file) return;
    setError(null);
    setAnswer(null);
    try {
      let content: unknown;
      try {
        content = JSON.parse(await file.text());
      } catch {
        throw new Error(`${file.name} is not a JSON document (an assertions file is one, as export writes it)`);
      }
      const result = await api.importFile(content, mode);
      setAnswer(result);
      onImported(result);
    } catch (err) {
      setError(err as Error);
    }
  };

  return (
    <div class="card">
      <h3>File</h3>
      <p class="muted">One JSON document a team keeps in git; import takes back what export writes.</p>
      <button type="button" name="export-assertions" onClick={() => void exportFile()}>
        Export (download)
      </button>
      <form class="filters" onSubmit={(e) => void importFile(e)}>
        <Field label="assertions file">
          <input
            type="file"
            name="import-file"
            accept="application/json,.json"
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
        </Field>
        <Field label="mode">
          <select name="import-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as ImportMode)}>
            <option value="replace">replace: the assertions become the file's</option>
            <option value="merge">merge: add and update, delete none</option>
          </select>
        </Field>
        <button type="submit" name="import-assertions" disabled={!file}>
          Import
        </button>
      </form>
      {answer ? (
        <p data-testid="import-result">
          Imported: {answer.created} created, {answer.updated} updated, {answer.deleted} deleted, {answer.unchanged} unchanged.
        </p>
      ) : null}
      <ErrorNote error={error} />
    </div>
  );
}
