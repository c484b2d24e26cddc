import { useState } from 'preact/hooks';
import { ApiError } from '../api/client';
import type { AuditEntry, EventsPage } from '../api/types';
import { asOfText, isoToUtcInput, utcInputToIso, type AsOf } from '../as-of';
import { eventsPath, type Ctx } from '../context';
import { useLoad } from './hooks';
import { time } from './widgets';

/** Latest events drawn on the strip. */
const RECENT = 200;
const WIDTH = 760;
const HEIGHT = 46;

/**
 * A date and time (UTC) for `as_of`: any moment of the log, however old; the
 * service resolves it to the last position accepted at or before it.
 */
export function TimeInput({
  value,
  onChange,
  label = 'date and time (UTC)',
}: {
  value: AsOf | null;
  onChange: (t: string) => void;
  label?: string;
}) {
  const [draft, setDraft] = useState(typeof value === 'string' ? isoToUtcInput(value) : '');
  const chosen = utcInputToIso(draft);
  return (
    <span class="time-input">
      <label class="inline">
        {label} <input type="datetime-local" step="1" name="as-of-time" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
      </label>{' '}
      <button type="button" name="as-of-time-go" disabled={chosen === null} onClick={() => chosen && onChange(chosen)}>
        go
      </button>
    </span>
  );
}

/**
 * Chooses `as_of`: a date and time (any moment of the log), or on a timeline
 * of log positions the environment's latest events as ticks (colour by kind
 * of change), a slider over the positions between the oldest shown and the
 * head, and "now". Positions are global (the log's), so a chosen position
 * between two ticks is that environment as it was after the tick on its left.
 * `resolved`: the position the service answered a time with (`X-Event-Position`).
 */
export function PositionPicker({
  ctx,
  value,
  onChange,
  resolved = null,
}: {
  ctx: Ctx;
  value: AsOf | null;
  onChange: (asOf: AsOf | null) => void;
  resolved?: number | null;
}) {
  const [opened, setOpen] = useState(false);
  // A position chosen elsewhere (the decision history, a timeline link) opens the picker on it.
  const open = opened || value !== null;
  const events = useLoad(
    (signal) => (open ? ctx.api.get<EventsPage>(eventsPath(ctx), { order: 'desc', limit: RECENT }, signal) : Promise.resolve(null)),
    [ctx.api, ctx.proj, ctx.env, open],
  );
  if (!open) {
    return (
      <p class="as-of">
        Deciding <strong>now</strong>.{' '}
        <button type="button" class="link" name="time-travel" onClick={() => setOpen(true)}>
          choose a past date or position…
        </button>
      </p>
    );
  }
  if (events.error) {
    const missing = events.error instanceof ApiError && events.error.status === 404;
    return (
      <p class="muted">
        {missing ? 'Time travel needs the audit log API (GET /v2/events), which this service does not have.' : events.error.message}
      </p>
    );
  }
  const page = events.value;
  if (!page) return <p class="muted">Loading the timeline…</p>;
  const entries = [...page.data].reverse();
  const head = page.head_position;
  const low = entries[0]?.position ?? head;
  const span = Math.max(1, head - low);
  const x = (p: number) => 12 + ((p - low) / span) * (WIDTH - 24);
  const at = typeof value === 'number' ? value : value === null ? null : resolved;
  const selected = at === null ? null : (entries.filter((e) => e.position <= at).at(-1) ?? null);
  return (
    <div class="as-of card" data-testid="as-of">
      <div class="as-of-head">
        <strong>as of</strong>{' '}
        <span data-testid="as-of-value">
          {value === null ? 'now' : asOfText(value)}
          {typeof value === 'string' && resolved !== null ? ` (position ${resolved})` : ''}
        </span>
        {selected ? (
          <span class="muted">
            {' '}
            — after {selected.type} at {time(selected.timestamp)}
          </span>
        ) : null}{' '}
        <button type="button" onClick={() => onChange(null)} disabled={value === null}>
          now
        </button>{' '}
        <button type="button" class="link" onClick={events.reload}>
          refresh
        </button>{' '}
        <button
          type="button"
          class="link"
          onClick={() => {
            onChange(null);
            setOpen(false);
          }}
        >
          close
        </button>
      </div>
      <p>
        <TimeInput key={typeof value === 'string' ? value : ''} value={value} onChange={onChange} />
        <span class="muted"> or a position of the {RECENT} latest events:</span>
      </p>
      <svg class="position-strip" width={WIDTH} height={HEIGHT} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="group" aria-label="log positions">
        <line x1="12" x2={WIDTH - 12} y1={HEIGHT / 2} y2={HEIGHT / 2} class="axis" />
        {entries.map((e) => (
          <Tick
            key={e.position}
            entry={e}
            x={x(e.position)}
            chosen={selected?.position === e.position}
            onPick={() => onChange(e.position)}
          />
        ))}
        {at !== null && at >= low ? <line x1={x(at)} x2={x(at)} y1="2" y2={HEIGHT - 2} class="cursor" /> : null}
      </svg>
      <input
        type="range"
        aria-label="position"
        min={low}
        max={head}
        value={at ?? head}
        onChange={(e) => onChange(Number(e.currentTarget.value))}
      />
      <span class="muted">
        {' '}
        positions {low}–{head}
        {page.next_after !== null ? ` (the ${RECENT} latest events)` : ''}
      </span>
    </div>
  );
}

function Tick({ entry, x, chosen, onPick }: { entry: AuditEntry; x: number; chosen: boolean; onPick: () => void }) {
  const kind = /Deleted|Unassigned|Removed/.test(entry.type)
    ? 'removal'
    : /Created|Assigned|Added/.test(entry.type)
      ? 'addition'
      : 'change';
  return (
    <g class={`tick ${kind}${chosen ? ' chosen' : ''}`} onClick={onPick} data-position={entry.position}>
      <rect x={x - 4} y="6" width="8" height={HEIGHT - 12} rx="2" />
      <title>{`${entry.position} ${entry.type} ${time(entry.timestamp)}`}</title>
    </g>
  );
}
