import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Query } from '../api/client';
import type { AuditEntry, EventsPage } from '../api/types';
import { isoToUtcInput, utcInputToIso } from '../as-of';
import { attributeSubject, attributesOf, diffAttributes, diffText, type AttributeDiff } from '../attributes';
import { useEventStream, useLoad } from '../components/hooks';
import { ErrorNote, JsonView, TextInput, time } from '../components/widgets';
import { eventsPath, factsPath, type Ctx } from '../context';
import { dataSummary, FILTERS, filterQuery } from '../queries';

const PAGE = 50;
/** Entries per request while exporting (the API's largest page). */
const EXPORT_PAGE = 1000;
/** The filters that apply to the organisation's log (docs/audit.md); the others name environment objects. */
const ORG_FILTERS = new Set(['type', 'actor_id', 'request_id', 'correlation_id']);
const METADATA = 'audit_metadata.';

/** Which log, and everything the route says about how to read it. */
interface Applied {
  org: boolean;
  filters: Record<string, string>;
  /** ISO times (UTC), inclusive: `timestamp_from`, `timestamp_until`. */
  from: string;
  until: string;
  /** `audit_metadata.<path>` → value. */
  metadata: Array<[string, string]>;
}

function appliedOf(params: URLSearchParams): Applied {
  const org = params.get('log') === 'org';
  return {
    org,
    filters: Object.fromEntries(FILTERS.filter((f) => !org || ORG_FILTERS.has(f.name)).map((f) => [f.name, params.get(f.name) ?? ''])),
    from: params.get('from') ?? '',
    until: params.get('until') ?? '',
    metadata: [...params.entries()].filter(([k]) => k.startsWith(METADATA)).map(([k, v]) => [k.slice(METADATA.length), v]),
  };
}

/** The route of a reading (empty parts left out). */
function routeOf(a: Applied): string {
  const params = new URLSearchParams();
  if (a.org) params.set('log', 'org');
  for (const [k, v] of Object.entries(a.filters)) if (v.trim()) params.set(k, v.trim());
  if (a.from) params.set('from', a.from);
  if (a.until) params.set('until', a.until);
  for (const [path, value] of a.metadata) if (path.trim()) params.append(`${METADATA}${path.trim()}`, value);
  const text = params.toString();
  return `#/timeline${text ? `?${text}` : ''}`;
}

/** The API's query for a reading: the filters, the time range, the metadata, and the organisation's stream. */
function apiQuery(a: Applied): Query {
  const query: Query = { ...filterQuery(a.filters) };
  if (a.org) query.stream = 'org';
  if (a.from) query.timestamp_from = a.from;
  if (a.until) query.timestamp_until = a.until;
  for (const [path, value] of a.metadata) query[`${METADATA}${path}`] = value;
  return query;
}

/** `ticket=SEC-1, reviewer.team=sec` ↔ pairs. */
const metadataText = (pairs: Array<[string, string]>) => pairs.map(([k, v]) => `${k}=${v}`).join(', ');
function parseMetadata(text: string): Array<[string, string]> {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const at = part.indexOf('=');
      return at < 0 ? [part, ''] : [part.slice(0, at).trim(), part.slice(at + 1).trim()];
    });
}

/** The scalar leaves of audit metadata as filter paths (`reviewer.team`), an array's elements each under its own path. */
export function metadataLeaves(value: unknown, prefix = ''): Array<[string, string]> {
  if (value === null || typeof value !== 'object')
    return prefix ? [[prefix, typeof value === 'string' ? value : JSON.stringify(value)]] : [];
  if (Array.isArray(value)) return value.flatMap((v) => metadataLeaves(v, prefix));
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => metadataLeaves(v, prefix ? `${prefix}.${k}` : k));
}

/** A row's check: its user and instance (or tenant), as of its position. */
function checkLink(e: AuditEntry): string {
  const d = e.data;
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const instance =
    text(d.resource_instance) ??
    text(d.object) ??
    (e.type.startsWith('ResourceInstance') && text(d.resource) && text(d.key) ? `${text(d.resource)}:${text(d.key)}` : undefined);
  const user = text(d.user) ?? (e.type.startsWith('User') ? text(d.key) : undefined);
  const params = new URLSearchParams({ as_of: String(e.position) });
  if (user) params.set('user', user);
  if (instance) params.set('resource', instance);
  if (text(d.tenant)) params.set('tenant', text(d.tenant)!);
  return `#/check?${params.toString()}`;
}

export function TimelinePage({ ctx, params }: { ctx: Ctx; params: URLSearchParams }) {
  const applied = appliedOf(params);
  const appliedText = JSON.stringify(applied);
  const [draft, setDraft] = useState(applied);
  const [entries, setEntries] = useState<AuditEntry[]>([]);
  const [nextAfter, setNextAfter] = useState<number | null>(null);
  const [head, setHead] = useState<number | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<Error | null>(null);
  const [live, setLive] = useState(params.get('live') !== '0');
  const [fresh, setFresh] = useState<Set<number>>(new Set());
  const orgKey = !ctx.session.scope.project_id;
  const path = applied.org ? '/v2/events' : eventsPath(ctx);
  const query = apiQuery(applied);

  const load = async (after: number | null) => {
    setLoading(true);
    try {
      const page = await ctx.api.get<EventsPage>(path, { ...query, order: 'desc', limit: PAGE, after: after ?? undefined });
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
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => {
    setDraft(applied);
    setEntries([]);
    setHead(null);
    void load(null);
  }, [ctx.api, ctx.proj, ctx.env, appliedText]);

  // Live: from the head the first page was read at, each new matching entry goes on top (unless a time range ends before now).
  const status = useEventStream(
    ctx.session.key,
    path,
    query,
    live && head !== null && !applied.until,
    (entry) => {
      setEntries((old) => (old.some((e) => e.position === entry.position) ? old : [entry, ...old]));
      setFresh((f) => new Set(f).add(entry.position));
    },
    head ?? undefined,
  );

  /** Filters on one value alone, in the same log and time range. */
  const filterBy = (name: string, value: string) =>
    ctx.go(
      routeOf({
        ...applied,
        filters: name.startsWith(METADATA) ? {} : { [name]: value },
        metadata: name.startsWith(METADATA) ? [[name.slice(METADATA.length), value]] : [],
      }),
    );
  const shownFilters = FILTERS.filter((f) => !draft.org || ORG_FILTERS.has(f.name));
  return (
    <section>
      <h2>Timeline</h2>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          ctx.go(routeOf(draft));
        }}
      >
        <label class="field">
          <span>log</span>
          <select
            name="log"
            value={draft.org ? 'org' : 'env'}
            onChange={(e) => ctx.go(routeOf({ ...draft, org: e.currentTarget.value === 'org' }))}
          >
            <option value="env">this environment</option>
            <option value="org" disabled={!orgKey}>
              the organisation (projects, environments, API keys){orgKey ? '' : ': needs an organisation key'}
            </option>
          </select>
        </label>
        {shownFilters.map((f) => (
          <TextInput
            key={f.name}
            label={f.name}
            value={draft.filters[f.name] ?? ''}
            placeholder={f.placeholder}
            onChange={(v) => setDraft({ ...draft, filters: { ...draft.filters, [f.name]: v } })}
          />
        ))}
        <TextInput
          label="audit metadata"
          name="audit_metadata"
          value={metadataText(draft.metadata)}
          placeholder="ticket=SEC-123, reviewer.team=sec"
          onChange={(v) => setDraft({ ...draft, metadata: parseMetadata(v) })}
        />
        <TimeField label="from (UTC)" name="from" value={draft.from} onChange={(v) => setDraft({ ...draft, from: v })} />
        <TimeField label="until (UTC)" name="until" value={draft.until} onChange={(v) => setDraft({ ...draft, until: v })} />
        <button type="submit">Filter</button>
        <button type="button" class="link" onClick={() => ctx.go(routeOf({ ...appliedOf(new URLSearchParams()), org: applied.org }))}>
          clear
        </button>
        <label class="inline">
          <input type="checkbox" name="live" checked={live} onChange={(e) => setLive(e.currentTarget.checked)} /> live{' '}
          <span class={`status ${status}`} data-testid="stream-status">
            {!live ? 'off' : applied.until ? 'off (the range ends in the past)' : status}
          </span>
        </label>
      </form>
      <Export ctx={ctx} path={path} query={query} head={head} name={applied.org ? 'organisation' : ctx.env} />
      <ErrorNote error={error} />
      <p class="muted" data-testid="timeline-status">
        {loading && entries.length === 0
          ? 'Loading the log…'
          : head !== null
            ? `${applied.org ? "The organisation's log" : "This environment's log"}, newest first; the log was at position ${head} when this page was read.`
            : ''}
      </p>
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
            <tr key={e.position} class={fresh.has(e.position) ? 'fresh' : ''} data-type={e.type} data-position={e.position}>
              <td>
                {applied.org ? (
                  e.position
                ) : (
                  <a href={checkLink(e)} title="check as of this position, with this entry's user and instance">
                    {e.position}
                  </a>
                )}
              </td>
              <td class="nowrap">{time(e.timestamp)}</td>
              <td>
                <button type="button" class="link" onClick={() => filterBy('type', e.type)}>
                  {e.type}
                </button>
              </td>
              <td>
                {e.actor.id ? (
                  <button
                    type="button"
                    class="link"
                    onClick={() => filterBy('actor_id', e.actor.id!)}
                    title={`${e.actor.type} ${e.actor.id}`}
                  >
                    {e.actor.type}:{e.actor.name || e.actor.id}
                  </button>
                ) : (
                  e.actor.type
                )}
              </td>
              <td>
                {e.request_id ? (
                  <button type="button" class="link mono request-id" onClick={() => filterBy('request_id', e.request_id!)}>
                    {e.request_id}
                  </button>
                ) : (
                  '—'
                )}
                {e.trace_id ? (
                  <div
                    class="mono trace-id"
                    title="the OpenTelemetry trace of the request that wrote this entry: look it up in your tracing backend (Jaeger: /trace/<id>)"
                  >
                    trace {e.trace_id}
                  </div>
                ) : null}
              </td>
              <td class="data-cell">
                <span class="summary">{dataSummary(e.data)}</span> <JsonView value={e.data} collapsed />
                {!applied.org && attributeSubject(e) ? <AttributeChanges ctx={ctx} entry={e} /> : null}
                {e.audit_metadata ? (
                  <div class="metadata" data-testid="audit-metadata">
                    metadata{' '}
                    {metadataLeaves(e.audit_metadata).map(([k, v]) => (
                      <button
                        key={`${k}=${v}`}
                        type="button"
                        class="chip"
                        title={`only the entries whose audit metadata has ${k} = ${v}`}
                        onClick={() => filterBy(`${METADATA}${k}`, v)}
                      >
                        {k}: {v}
                      </button>
                    ))}
                  </div>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {nextAfter !== null ? (
        <button type="button" disabled={loading} onClick={() => void load(nextAfter)}>
          {loading ? 'loading…' : 'older…'}
        </button>
      ) : loading ? null : entries.length > 0 ? (
        <p class="muted">The beginning of the log.</p>
      ) : error ? null : (
        <p class="muted">No events match.</p>
      )}
    </section>
  );
}

/** A time of the range, typed in UTC as the page shows times; kept as ISO (`2026-05-01T09:14:00Z`). */
function TimeField({ label, name, value, onChange }: { label: string; name: string; value: string; onChange: (iso: string) => void }) {
  return (
    <label class="field">
      <span>{label}</span>
      <input
        type="datetime-local"
        step="1"
        name={name}
        value={value ? isoToUtcInput(value) : ''}
        onInput={(e) => onChange(utcInputToIso(e.currentTarget.value) ?? '')}
      />
    </label>
  );
}

/**
 * The attributes an update changed, old → new: the object read as of the
 * position before and as of the entry's own (the entry holds only the new
 * values). Needs the service's time travel; without it, nothing is shown.
 */
function AttributeChanges({ ctx, entry }: { ctx: Ctx; entry: AuditEntry }) {
  const subject = attributeSubject(entry)!;
  const diffs = useLoad<AttributeDiff[]>(
    async (signal) => {
      const read = async (asOf: number) => {
        try {
          const doc = await ctx.api.get<Record<string, unknown>>(
            `${factsPath(ctx)}/${subject.kind}/${encodeURIComponent(subject.id)}`,
            { as_of: asOf },
            signal,
          );
          return attributesOf(subject.kind, doc);
        } catch (err) {
          if (err instanceof ApiError && err.status === 404) return null;
          throw err;
        }
      };
      const [before, after] = await Promise.all([read(entry.position - 1), read(entry.position)]);
      return diffAttributes(before, after);
    },
    [ctx.api, ctx.proj, ctx.env, entry.position],
  );
  if (!diffs.value?.length) return null;
  return (
    <ul class="attribute-changes" data-testid="attribute-changes">
      {diffs.value.map((d) => (
        <li key={d.attribute}>
          <code>{diffText(d)}</code>
        </li>
      ))}
    </ul>
  );
}

/**
 * Every entry of the filtered range as JSON Lines, read through the API's
 * pages (oldest first, up to the position the page shown was read at), not
 * only what is on screen; saved as a file.
 */
function Export({ ctx, path, query, head, name }: { ctx: Ctx; path: string; query: Query; head: number | null; name: string }) {
  const [state, setState] = useState<{ count: number; done: boolean } | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const run = async () => {
    if (head === null) return;
    setError(null);
    setState({ count: 0, done: false });
    const lines: string[] = [];
    try {
      for (let after: number | null = 0; after !== null;) {
        const page: EventsPage = await ctx.api.get<EventsPage>(path, { ...query, order: 'asc', limit: EXPORT_PAGE, after, until: head });
        for (const entry of page.data) lines.push(JSON.stringify(entry));
        setState({ count: lines.length, done: false });
        after = page.next_after;
      }
      const blob = new Blob(lines.length ? [`${lines.join('\n')}\n`] : [], { type: 'application/jsonl' });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = `audit-${name}-to-${head}.jsonl`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      setState({ count: lines.length, done: true });
    } catch (err) {
      setState(null);
      setError(err as Error);
    }
  };
  return (
    <p class="export">
      <button type="button" name="export" disabled={head === null || (state !== null && !state.done)} onClick={() => void run()}>
        Export as JSON Lines
      </button>{' '}
      <span class="muted" data-testid="export-status">
        {state === null
          ? 'every entry these filters match, up to the position shown, oldest first'
          : state.done
            ? `exported ${state.count} entries`
            : `reading… ${state.count} entries`}
      </span>
      <ErrorNote error={error} />
    </p>
  );
}
