import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Assignment, Counted, Instance, Tenant, Tuple, User } from '../api/types';
import { asOfText, isoToUtcInput, parseAsOf, utcInputToIso, type AsOf } from '../as-of';
import { attributesText } from '../attributes';
import { useLoad } from '../components/hooks';
import { ErrorNote, Pager, TextInput, time } from '../components/widgets';
import { factsPath, type Ctx } from '../context';

interface Kind<T> {
  title: string;
  path: string;
  /** The list's filters, as the API takes them (only these: the console never filters in the page). */
  filters: Array<{ name: string; placeholder: string }>;
  columns: Array<{ title: string; cell(row: T): ComponentChildren }>;
  /** Links and buttons; `asOf` set: the list is of the past (links keep it, nothing is deleted). */
  actions?(row: T, ctx: Ctx, done: () => void, asOf: AsOf | null): ComponentChildren;
}

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
/** `as_of` for a link, when the list is of the past. */
const past = (asOf: AsOf | null): Record<string, string> => (asOf === null ? {} : { as_of: String(asOf) });

/** Attributes as `name=value` pairs (the whole JSON on hover). */
function AttributesCell({ attributes }: { attributes?: Record<string, unknown> }) {
  const text = attributesText(attributes);
  return text ? (
    <code class="attributes" title={JSON.stringify(attributes, null, 2)}>
      {text}
    </code>
  ) : (
    <span class="muted">—</span>
  );
}

/** A kind's rows are typed where it is declared; the page handles them as opaque rows. */
function kind<T>(k: Kind<T>): Kind<unknown> {
  return k;
}

const KINDS: Record<string, Kind<unknown>> = {
  instances: kind<Instance>({
    title: 'Instances',
    path: 'resource_instances',
    filters: [
      { name: 'resource', placeholder: 'resource type, e.g. file' },
      { name: 'tenant', placeholder: 'tenant key' },
    ],
    columns: [
      { title: 'instance', cell: (r: Instance) => <code>{`${r.resource}:${r.key}`}</code> },
      { title: 'tenant', cell: (r: Instance) => r.tenant },
      { title: 'attributes', cell: (r: Instance) => <AttributesCell attributes={r.attributes} /> },
      { title: 'created', cell: (r: Instance) => time(r.created_at) },
    ],
    actions: (r: Instance, _ctx, _done, asOf) => (
      <>
        <a href={`#/check?${q({ resource: `${r.resource}:${r.key}`, tenant: r.tenant, ...past(asOf) })}`}>check</a>{' '}
        <a href={`#/facts?${q({ kind: 'tuples', object: `${r.resource}:${r.key}` })}`}>tuples</a>{' '}
        <a href={`#/timeline?${q({ resource_instance: `${r.resource}:${r.key}` })}`}>timeline</a>
      </>
    ),
  }),
  users: kind<User>({
    title: 'Users',
    path: 'users',
    filters: [],
    columns: [
      { title: 'user', cell: (r: User) => <code>{r.key}</code> },
      { title: 'email', cell: (r: User) => r.email ?? '' },
      { title: 'name', cell: (r: User) => [r.first_name, r.last_name].filter(Boolean).join(' ') },
      { title: 'attributes', cell: (r: User) => <AttributesCell attributes={r.attributes} /> },
      { title: 'created', cell: (r: User) => time(r.created_at) },
    ],
    actions: (r: User, _ctx, _done, asOf) => (
      <>
        <a href={`#/facts?${q({ kind: 'assignments', user: r.key, ...past(asOf) })}`}>roles</a>{' '}
        <a href={`#/check?${q({ user: r.key, ...past(asOf) })}`}>check</a> <a href={`#/timeline?${q({ user: r.key })}`}>timeline</a>
      </>
    ),
  }),
  tenants: kind<Tenant>({
    title: 'Tenants',
    path: 'tenants',
    filters: [],
    columns: [
      { title: 'tenant', cell: (r: Tenant) => <code>{r.key}</code> },
      { title: 'name', cell: (r: Tenant) => r.name },
      { title: 'attributes', cell: (r: Tenant) => <AttributesCell attributes={r.attributes} /> },
      { title: 'created', cell: (r: Tenant) => time(r.created_at) },
    ],
    actions: (r: Tenant, _ctx, _done, asOf) => (
      <>
        <a href={`#/facts?${q({ kind: 'instances', tenant: r.key, ...past(asOf) })}`}>instances</a>{' '}
        <a href={`#/timeline?${q({ tenant: r.key })}`}>timeline</a>
      </>
    ),
  }),
  assignments: kind<Assignment>({
    title: 'Role assignments',
    path: 'role_assignments',
    filters: [
      { name: 'user', placeholder: 'user key' },
      { name: 'role', placeholder: 'role key' },
      { name: 'resource_instance', placeholder: 'type:key' },
      { name: 'tenant', placeholder: 'tenant key' },
      // What expires soon: those that end before an instant (docs/expiring-access.md).
      { name: 'expires_before', placeholder: 'ends before (ISO time)' },
    ],
    columns: [
      { title: 'user', cell: (r: Assignment) => <code>{r.user}</code> },
      { title: 'role', cell: (r: Assignment) => r.role },
      { title: 'on', cell: (r: Assignment) => (r.resource_instance ? <code>{r.resource_instance}</code> : <em>tenant {r.tenant}</em>) },
      { title: 'created', cell: (r: Assignment) => time(r.created_at) },
      { title: 'ends', cell: (r: Assignment) => ends(r.expires_at) },
    ],
    actions: (r: Assignment, ctx, done, asOf) => (
      <>
        <a
          href={`#/check?${q({ user: r.user, ...(r.resource_instance ? { resource: r.resource_instance } : {}), tenant: r.tenant, ...past(asOf) })}`}
        >
          check
        </a>{' '}
        {asOf !== null ? null : (
          <DeleteButton
            what={`role ${r.role} of ${r.user}`}
            run={() =>
              ctx.api.delete(`${factsPath(ctx)}/role_assignments`, {
                user: r.user,
                role: r.role,
                ...(r.resource_instance ? { resource_instance: r.resource_instance } : { tenant: r.tenant }),
              })
            }
            done={done}
          />
        )}
      </>
    ),
  }),
  tuples: kind<Tuple>({
    title: 'Relationship tuples',
    path: 'relationship_tuples',
    filters: [
      { name: 'subject', placeholder: 'type:key' },
      { name: 'relation', placeholder: 'relation key' },
      { name: 'object', placeholder: 'type:key' },
      { name: 'tenant', placeholder: 'tenant key' },
      { name: 'expires_before', placeholder: 'ends before (ISO time)' },
    ],
    columns: [
      { title: 'subject', cell: (r: Tuple) => <code>{r.subject}</code> },
      { title: 'relation', cell: (r: Tuple) => r.relation },
      { title: 'object', cell: (r: Tuple) => <code>{r.object}</code> },
      { title: 'tenant', cell: (r: Tuple) => r.tenant },
      { title: 'ends', cell: (r: Tuple) => ends(r.expires_at) },
    ],
    actions: (r: Tuple, ctx, done, asOf) => (
      <>
        <a href={`#/timeline?${q({ resource_instance: r.object, relation: r.relation })}`}>timeline</a>{' '}
        {asOf !== null ? null : (
          <DeleteButton
            what={`tuple ${r.subject} ${r.relation} ${r.object}`}
            run={() =>
              ctx.api.delete(`${factsPath(ctx)}/relationship_tuples`, { subject: r.subject, relation: r.relation, object: r.object })
            }
            done={done}
          />
        )}
      </>
    ),
  }),
};

/** When access ends: its time, or never. */
const ends = (expiresAt: string | null | undefined) => (expiresAt ? time(expiresAt) : <em>never</em>);

function DeleteButton({ what, run, done }: { what: string; run: () => Promise<unknown>; done: () => void }) {
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <button
        type="button"
        class="link danger"
        onClick={() => {
          if (!confirm(`Delete ${what}?`)) return;
          run().then(done, (e: Error) => setError(e.message));
        }}
      >
        delete
      </button>
      {error ? <span class="error">{error}</span> : null}
    </>
  );
}

export function FactsPage({ ctx, params }: { ctx: Ctx; params: URLSearchParams }) {
  const kindName = KINDS[params.get('kind') ?? ''] ? params.get('kind')! : 'instances';
  const kind = KINDS[kindName]!;
  const applied = Object.fromEntries(kind.filters.map((f) => [f.name, params.get(f.name) ?? '']));
  const page = Math.max(1, Number(params.get('page') ?? 1) || 1);
  const perPage = [25, 50, 100].includes(Number(params.get('per_page'))) ? Number(params.get('per_page')) : 25;
  const asOf = parseAsOf(params.get('as_of'));
  const [draft, setDraft] = useState<Record<string, string>>({ ...applied, as_of: asOf === null ? '' : String(asOf) });
  const [draftKind, setDraftKind] = useState(kindName);
  if (draftKind !== kindName) {
    setDraftKind(kindName);
    setDraft({ ...applied, as_of: asOf === null ? '' : String(asOf) });
  }
  const draftAsOf = (draft.as_of ?? '').trim();
  const badAsOf = draftAsOf !== '' && parseAsOf(draftAsOf) === null;
  const navigate = (next: Record<string, string | number>) => {
    const all = { kind: kindName, ...applied, ...(asOf === null ? {} : { as_of: String(asOf) }), page, per_page: perPage, ...next };
    const clean = Object.fromEntries(
      Object.entries(all)
        .filter(([, v]) => v !== '' && v !== undefined)
        .map(([k, v]) => [k, String(v)]),
    );
    ctx.go(`#/facts?${q(clean)}`);
  };
  const list = useLoad(
    async (signal) => {
      const answer = await ctx.api.request<Counted<unknown>>('GET', `${factsPath(ctx)}/${kind.path}`, {
        query: { ...applied, page, per_page: perPage, include_total_count: true, as_of: asOf ?? undefined },
        signal,
      });
      return { ...answer.data, position: answer.position };
    },
    [ctx.api, ctx.proj, ctx.env, kindName, JSON.stringify(applied), page, perPage, asOf],
  );
  return (
    <section>
      <h2>Facts</h2>
      <nav class="tabs">
        {Object.entries(KINDS).map(([name, k]) => (
          <a key={name} href={`#/facts?kind=${name}`} class={name === kindName ? 'active' : ''}>
            {k.title}
          </a>
        ))}
      </nav>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          navigate({ ...draft, as_of: draftAsOf, page: 1 });
        }}
      >
        {kind.filters.map((f) => (
          <TextInput
            key={f.name}
            label={f.name}
            value={draft[f.name] ?? ''}
            placeholder={f.placeholder}
            onChange={(v) => setDraft({ ...draft, [f.name]: v })}
          />
        ))}
        <label class="field">
          <span>as of (UTC)</span>
          <input
            type="datetime-local"
            step="1"
            name="as-of-time"
            value={parseAsOf(draftAsOf) !== null && typeof parseAsOf(draftAsOf) === 'string' ? isoToUtcInput(draftAsOf) : ''}
            onInput={(e) => setDraft({ ...draft, as_of: utcInputToIso(e.currentTarget.value) ?? '' })}
          />
        </label>
        <TextInput
          label="or position"
          name="as_of"
          value={draftAsOf}
          placeholder="now"
          onChange={(v) => setDraft({ ...draft, as_of: v })}
        />
        <button type="submit" disabled={badAsOf}>
          {kind.filters.length > 0 ? 'Search' : 'Show'}
        </button>
        {kind.filters.length === 0 ? <span class="muted">The API lists these without filters.</span> : null}
        {badAsOf ? <span class="error">as of: a log position, or a date and time</span> : null}
        <label class="field">
          <span>per page</span>
          <select value={perPage} onChange={(e) => navigate({ per_page: e.currentTarget.value, page: 1 })}>
            {[25, 50, 100].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
      </form>
      {asOf !== null ? (
        <p class="as-of-note" data-testid="facts-as-of">
          As of <strong>{asOfText(asOf)}</strong>
          {list.value?.position != null ? ` (log position ${list.value.position})` : ''}: the facts as they were then.{' '}
          <button type="button" class="link" onClick={() => navigate({ as_of: '', page: 1 })}>
            now
          </button>
        </p>
      ) : null}
      <ErrorNote error={list.error} />
      {list.value ? (
        <>
          <Pager
            page={page}
            perPage={perPage}
            shown={list.value.data.length}
            total={list.value.total_count}
            onPage={(p) => navigate({ page: p })}
          />
          <table class={`data${list.loading ? ' stale' : ''}`} data-testid={`facts-${kindName}`}>
            <thead>
              <tr>
                {kind.columns.map((c) => (
                  <th key={c.title}>{c.title}</th>
                ))}
                <th />
              </tr>
            </thead>
            <tbody>
              {list.value.data.map((row, i) => (
                <tr key={i}>
                  {kind.columns.map((c) => (
                    <td key={c.title}>{c.cell(row)}</td>
                  ))}
                  <td class="actions">{kind.actions?.(row, ctx, list.reload, asOf)}</td>
                </tr>
              ))}
              {list.value.data.length === 0 ? (
                <tr>
                  <td colSpan={kind.columns.length + 1} class="muted">
                    Nothing here.
                  </td>
                </tr>
              ) : null}
            </tbody>
          </table>
        </>
      ) : list.loading ? (
        <p class="muted">Loading…</p>
      ) : null}
    </section>
  );
}
