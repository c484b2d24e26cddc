import { useEffect, useState } from 'preact/hooks';
import { ApiError, seg } from '../api/client';
import { ErrorNote, JsonView, Pager, TextInput, time, Verdict } from '../components/widgets';
import type { Ctx } from '../context';

/** One entry of `GET /v2/pdps/{proj}/{env}/audit_logs` (docs/decision-logs.md). */
export interface DecisionLogEntry {
  id: string;
  timestamp: string;
  query: string;
  user_key: string;
  resource_type: string | null;
  resource_key: string | null;
  tenant: string | null;
  action: string | null;
  decision: boolean | null;
  api_key_id: string | null;
  endpoint: string;
  position: number;
  input: Record<string, unknown>;
  result: unknown;
}

interface DecisionLogPage {
  data: DecisionLogEntry[];
  total_count: number;
}

const PER_PAGE = 50;
/** The text filters, as the API names them (`users` and `resources` take one value here). */
const FILTERS = [
  { name: 'users', label: 'user', placeholder: 'alice' },
  { name: 'action', label: 'action', placeholder: 'read' },
  { name: 'resources', label: 'resource', placeholder: 'document:readme, or document' },
  { name: 'tenant', label: 'tenant', placeholder: 'acme' },
  { name: 'timestamp_from', label: 'from', placeholder: '2026-05-01T00:00Z' },
  { name: 'timestamp_to', label: 'to', placeholder: '2026-05-02' },
] as const;
const DECISIONS = [
  { value: '', label: 'all' },
  { value: 'false', label: 'denied' },
  { value: 'true', label: 'allowed' },
] as const;

export const decisionLogPath = (c: Pick<Ctx, 'proj' | 'env'>) => `/v2/pdps/${seg(c.proj)}/${seg(c.env)}/audit_logs`;

/** The page's address with these filters (empty ones left out), at a page. */
function hashOf(filters: Record<string, string>, page = 1): string {
  const clean = Object.fromEntries(Object.entries(filters).filter(([, v]) => v.trim() !== ''));
  if (page > 1) clean.page = String(page);
  return `#/decisions?${new URLSearchParams(clean).toString()}`;
}

/** The Check page's link for an entry: its question, as of the position it was decided at. */
export function checkLink(e: DecisionLogEntry): string | null {
  if (e.action === null || e.resource_type === null) return null;
  const resource = e.resource_key === null ? e.resource_type : `${e.resource_type}:${e.resource_key}`;
  const params = new URLSearchParams({ user: e.user_key, action: e.action, resource, as_of: String(e.position), run: '1' });
  if (e.tenant !== null) params.set('tenant', e.tenant);
  return `#/check?${params.toString()}`;
}

/**
 * The decision log: which checks were asked, by which key, answered what, newest first, with
 * Permit's filters; "denied" is one click. Each check links to the Check page with its question
 * filled in, as of the position it was decided at: the same answer, with its derivation.
 */
export function DecisionsPage({ ctx, params }: { ctx: Ctx; params: URLSearchParams }) {
  const names = [...FILTERS.map((f) => f.name), 'decision'];
  const applied: Record<string, string> = Object.fromEntries(names.map((n) => [n, params.get(n) ?? '']));
  const appliedText = JSON.stringify(applied);
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  const [draft, setDraft] = useState(applied);
  const [found, setFound] = useState<DecisionLogPage | null>(null);
  const [error, setError] = useState<Error | null>(null);

  const open = (next: Record<string, string>, toPage = 1) => ctx.go(hashOf(next, toPage));

  useEffect(() => {
    setDraft(applied);
    const query: Record<string, string | number> = { per_page: PER_PAGE, page };
    for (const [name, value] of Object.entries(applied)) if (value.trim() !== '') query[name] = value.trim();
    ctx.api
      .get<DecisionLogPage>(decisionLogPath(ctx), query)
      .then((p) => {
        setFound(p);
        setError(null);
      })
      .catch((err: unknown) => {
        setFound(null);
        setError(
          err instanceof ApiError && err.status === 404 && err.message.startsWith('No route')
            ? new Error('This service has no decision log API (GET /v2/pdps/…/audit_logs).')
            : (err as Error),
        );
      });
  }, [ctx.api, ctx.proj, ctx.env, appliedText, page]);

  return (
    <section>
      <h2>Decisions</h2>
      <nav class="tabs" aria-label="decision">
        {DECISIONS.map((d) => (
          <a key={d.value} href={hashOf({ ...applied, decision: d.value })} class={applied.decision === d.value ? 'active' : ''}>
            {d.label}
          </a>
        ))}
      </nav>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          open(draft);
        }}
      >
        {FILTERS.map((f) => (
          <TextInput
            key={f.name}
            label={f.label}
            name={f.name}
            value={draft[f.name] ?? ''}
            placeholder={f.placeholder}
            onChange={(v) => setDraft({ ...draft, [f.name]: v })}
          />
        ))}
        <button type="submit">Filter</button>
        <button type="button" class="link" onClick={() => ctx.go('#/decisions')}>
          clear
        </button>
      </form>
      <ErrorNote error={error} />
      {found ? (
        <>
          <p class="muted">
            Newest first. Each check opens in Check as of the log position it was decided at, which answers it again, with why.
          </p>
          <table class="data decisions" data-testid="decisions">
            <thead>
              <tr>
                <th>time</th>
                <th>decision</th>
                <th>user</th>
                <th>action</th>
                <th>resource</th>
                <th>tenant</th>
                <th>endpoint</th>
                <th>key</th>
                <th>position</th>
                <th>question</th>
              </tr>
            </thead>
            <tbody>
              {found.data.map((e) => {
                const link = checkLink(e);
                return (
                  <tr key={e.id} data-id={e.id} data-decision={e.decision === null ? 'none' : String(e.decision)}>
                    <td class="nowrap">{time(e.timestamp)}</td>
                    <td>{e.decision === null ? <span class="muted">{e.query}</span> : <Verdict allow={e.decision} />}</td>
                    <td>
                      <button type="button" class="link" onClick={() => open({ ...applied, users: e.user_key })}>
                        {e.user_key}
                      </button>
                    </td>
                    <td>{e.action ?? '—'}</td>
                    <td>
                      {e.resource_type === null ? '—' : e.resource_key === null ? e.resource_type : `${e.resource_type}:${e.resource_key}`}
                    </td>
                    <td>{e.tenant ?? '—'}</td>
                    <td class="mono">{e.endpoint}</td>
                    <td class="mono">{e.api_key_id ?? '—'}</td>
                    <td>
                      {link ? (
                        <a href={link} title="check this question as of this position">
                          {e.position}
                        </a>
                      ) : (
                        e.position
                      )}
                    </td>
                    <td class="data-cell">
                      <JsonView value={e.input} collapsed />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {found.data.length === 0 ? <p class="muted">No decision matches.</p> : null}
          <Pager page={page} perPage={PER_PAGE} shown={found.data.length} total={found.total_count} onPage={(p) => open(applied, p)} />
        </>
      ) : error ? null : (
        <p class="muted">Loading…</p>
      )}
    </section>
  );
}
