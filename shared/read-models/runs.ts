import type { RecordedEvent, RecordedOf } from '../events';
import type { EnvEventOf } from '../events';
import { isEventOf } from '../events';
import type { Projection } from './projection';

/**
 * Runs of expiries (docs/expiring-access.md §3): the scheduler appends the expiries due at an
 * instant together, up to a thousand an append, one after another in the log. Applied one at a
 * time, each is a retraction of its own (its assignment, its end, its version, its grants: a dozen
 * statements an event); applied as one, the run is a few set-wise statements. Each projection that
 * can apply a run at once (`Projection.applyRun`) leaves its read models exactly as the events one
 * at a time would: versions closed at each event's own position, the same grants; one that cannot
 * apply a given run says so (`acceptsRun`) before anything of it is applied, and the run's events
 * are then applied one at a time, as any others.
 */

/** A run: consecutive RoleAssignmentExpired events of one environment, each of an assignment on a resource instance. */
export type ExpiryRun = Array<RecordedOf<EnvEventOf<'RoleAssignmentExpired'>>>;

/** Most events of a run: the projections apply it without a turn for requests in between. */
export const MAX_RUN = 1_000;

/** An expiry of a role assigned on a resource instance (one at tenant level also changes its user's document, kept per event). */
function runnable(event: RecordedEvent): event is ExpiryRun[number] {
  return (
    event.type === 'RoleAssignmentExpired' &&
    isEventOf('env', event) &&
    (event.data as { resourceInstance: unknown }).resourceInstance !== null
  );
}

/** `batch` in order, cut into runs (two events or more) and single events. */
export function* stepsOf(batch: readonly RecordedEvent[]): Generator<{ run: ExpiryRun } | { event: RecordedEvent }> {
  let i = 0;
  while (i < batch.length) {
    const first = batch[i]!;
    let end = i + 1;
    if (runnable(first))
      while (end < batch.length && end - i < MAX_RUN && runnable(batch[end]!) && batch[end]!.streamId === first.streamId) end += 1;
    if (end - i > 1) yield { run: batch.slice(i, end) as ExpiryRun };
    else yield { event: first };
    i = end;
  }
}

/**
 * Whether the projections that handle the run's events take it at once: none refuses it
 * (`acceptsRun`). One that handles them without `applyRun` gets them one at a time, after the
 * projections before it applied the whole run, so it must not read what those write of these events
 * (the history's clock and the audit index read only their own).
 */
export async function runAccepted(projections: readonly Projection[], run: ExpiryRun): Promise<boolean> {
  for (const projection of projections) {
    if (!(projection.handles as ReadonlySet<string>).has('RoleAssignmentExpired')) continue;
    if (projection.acceptsRun && !(await projection.acceptsRun(run))) return false;
  }
  return true;
}

/**
 * Applies an accepted run: each projection in turn, the whole run (`applyRun`, or its events one at
 * a time, each after every projection's `begin` as for any event).
 */
export async function applyRun(projections: readonly Projection[], run: ExpiryRun): Promise<void> {
  for (const projection of projections) {
    if (!(projection.handles as ReadonlySet<string>).has('RoleAssignmentExpired')) continue;
    if (projection.applyRun) {
      for (const other of projections) other.begin?.(run[0]!);
      await projection.applyRun(run);
      continue;
    }
    for (const event of run) {
      for (const other of projections) other.begin?.(event);
      await projection.apply(event);
    }
  }
  // What the projections write next is as of the position after the run, as after its last event.
  for (const projection of projections) projection.begin?.(run.at(-1)!);
}
