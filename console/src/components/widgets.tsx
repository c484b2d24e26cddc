import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

export function ErrorNote({ error }: { error: Error | undefined | null }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error.message}
    </p>
  );
}

export function Verdict({ allow }: { allow: boolean }) {
  return <span class={`verdict ${allow ? 'allow' : 'deny'}`}>{allow ? 'ALLOW' : 'DENY'}</span>;
}

/** A JSON value, collapsed to one line until opened. */
export function JsonView({ value, open = false, collapsed = false }: { value: unknown; open?: boolean; collapsed?: boolean }) {
  const [expanded, setExpanded] = useState(open);
  const oneLine = JSON.stringify(value);
  if (oneLine === undefined) return <code>—</code>;
  if (collapsed && !expanded) {
    return (
      <button type="button" class="link" title="the whole data" onClick={() => setExpanded(true)}>
        json ▸
      </button>
    );
  }
  if (!expanded && oneLine.length <= 100) return <code class="json">{oneLine}</code>;
  return (
    <span class="json-box">
      <button type="button" class="link" onClick={() => setExpanded(!expanded)}>
        {expanded ? '▾' : '▸'}
      </button>
      {expanded ? <pre class="json">{JSON.stringify(value, null, 2)}</pre> : <code class="json">{oneLine.slice(0, 100)}…</code>}
    </span>
  );
}

export function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <label class="field">
      <span>{label}</span>
      {children}
    </label>
  );
}

export function TextInput(props: { label: string; value: string; onChange: (value: string) => void; placeholder?: string; name?: string }) {
  return (
    <Field label={props.label}>
      <input
        name={props.name ?? props.label}
        value={props.value}
        placeholder={props.placeholder}
        onInput={(e) => props.onChange(e.currentTarget.value)}
      />
    </Field>
  );
}

/** Previous/next over `page` (1-based); `total` when the API counted. */
export function Pager(props: { page: number; perPage: number; shown: number; total?: number; onPage: (page: number) => void }) {
  const { page, perPage, shown, total } = props;
  const first = shown === 0 ? 0 : (page - 1) * perPage + 1;
  const last = (page - 1) * perPage + shown;
  const pages = total === undefined ? undefined : Math.max(1, Math.ceil(total / perPage));
  const hasNext = pages === undefined ? shown === perPage : page < pages;
  return (
    <div class="pager">
      <button type="button" disabled={page <= 1} onClick={() => props.onPage(page - 1)}>
        ‹ previous
      </button>
      <span data-testid="pager-status">
        {first}–{last}
        {total !== undefined ? ` of ${total.toLocaleString('en')}` : ''} · page {page}
        {pages !== undefined ? ` of ${pages.toLocaleString('en')}` : ''}
      </span>
      <button type="button" disabled={!hasNext} onClick={() => props.onPage(page + 1)}>
        next ›
      </button>
    </div>
  );
}

export const time = (iso: string): string => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z');
};
