import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api/client';
import type { AuditEntry, EventsPage } from '../api/types';
import { useEventStream } from '../components/hooks';
import { ErrorNote, JsonView, TextInput, time } from '../components/widgets';
import { eventsPath, type Ctx } from '../context';
import { dataSummary, FILTERS, filterQuery } from '../queries';

const PAGE = 50;

export function TimelinePage({ ctx, params }: { ctx: Ctx; params: URLSearchParams }) {
  const applied = Object.fromEntries(FILTERS.map((f) => [f.name, params.get(f.name) ?? '']));
  const appliedText = JSON.stringify(applied);
  const [draft, setDraft] = useState(applied);
  const [entries, setEntries] = useState<AuditEntry[]>([]);
  const [nextAfter, setNextAfter] = useState<number | null>(null);
  const [head, setHead] = useState<number | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [live, setLive] = useState(params.get('live') !== '0');
  const [fresh, setFresh] = useState<Set<number>>(new Set());
  const query = filterQuery(applied);

  const load = async (after: number | null) => {
    try {
      const page = await ctx.api.get<EventsPage>(eventsPath(ctx), { ...query, order: 'desc', limit: PAGE, after: after ?? undefined });
      setEntries((old) => (after === null ? page.data : [...old, ...page.data]));
      setNextAfter(page.next_after);
      if (after === null) setHead(page.head_position);
      setError(null);
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 404 && err.message.startsWith('No route')
          ? new Error('This service has no audit log API (GET /v2/events).')
          : (err as Error),
      );
    }
  };
  useEffect(() => {
    setDraft(applied);
    setEntries([]);
    setHead(null);
    void load(null);
  }, [ctx.api, ctx.proj, ctx.env, appliedText]);

  // Live: from the head the first page was read at, each new matching entry goes on top.
  const status = useEventStream(
    ctx.session.key,
    eventsPath(ctx),
    query,
    live && head !== null,
    (entry) => {
      setEntries((old) => (old.some((e) => e.position === entry.position) ? old : [entry, ...old]));
      setFresh((f) => new Set(f).add(entry.position));
    },
    head ?? undefined,
  );

  const filterBy = (name: string, value: string) => ctx.go(`#/timeline?${new URLSearchParams({ [name]: value }).toString()}`);
  return (
    <section>
      <h2>Timeline</h2>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          const clean = Object.fromEntries(Object.entries(draft).filter(([, v]) => v.trim() !== ''));
          ctx.go(`#/timeline?${new URLSearchParams(clean).toString()}`);
        }}
      >
        {FILTERS.map((f) => (
          <TextInput
            key={f.name}
            label={f.name}
            value={draft[f.name] ?? ''}
            placeholder={f.placeholder}
            onChange={(v) => setDraft({ ...draft, [f.name]: v })}
          />
        ))}
        <button type="submit">Filter</button>
        <button type="button" class="link" onClick={() => ctx.go('#/timeline')}>
          clear
        </button>
        <label class="inline">
          <input type="checkbox" name="live" checked={live} onChange={(e) => setLive(e.currentTarget.checked)} /> live{' '}
          <span class={`status ${status}`} data-testid="stream-status">
            {live ? status : 'off'}
          </span>
        </label>
      </form>
      <ErrorNote error={error} />
      <p class="muted">{head !== null ? `Newest first; the log was at position ${head} when this page was read.` : ''}</p>
      <table class="data timeline" data-testid="timeline">
        <thead>
          <tr>
            <th>position</th>
            <th>time</th>
            <th>event</th>
            <th>actor</th>
            <th>request</th>
            <th>data</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.position} class={fresh.has(e.position) ? 'fresh' : ''} data-type={e.type}>
              <td>
                <a href={`#/check?as_of=${e.position}`} title="check as of this position">
                  {e.position}
                </a>
              </td>
              <td class="nowrap">{time(e.timestamp)}</td>
              <td>
                <button type="button" class="link" onClick={() => filterBy('type', e.type)}>
                  {e.type}
                </button>
              </td>
              <td>
                {e.actor.id ? (
                  <button type="button" class="link" onClick={() => filterBy('actor_id', e.actor.id!)} title={e.actor.id}>
                    {e.actor.type}:{e.actor.name || e.actor.id.slice(0, 8)}
                  </button>
                ) : (
                  e.actor.type
                )}
              </td>
              <td>
                {e.request_id ? (
                  <button type="button" class="link mono" onClick={() => filterBy('request_id', e.request_id!)} title={e.request_id}>
                    {e.request_id.slice(0, 8)}
                  </button>
                ) : (
                  '—'
                )}
              </td>
              <td class="data-cell">
                <span class="summary">{dataSummary(e.data)}</span> <JsonView value={e.data} collapsed />
                {e.audit_metadata ? (
                  <div>
                    metadata <JsonView value={e.audit_metadata} />
                  </div>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {nextAfter !== null ? (
        <button type="button" onClick={() => void load(nextAfter)}>
          older…
        </button>
      ) : entries.length > 0 ? (
        <p class="muted">The beginning of the log.</p>
      ) : (
        <p class="muted">No events match.</p>
      )}
    </section>
  );
}
