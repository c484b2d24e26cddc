import { useEffect, useRef, useState } from 'preact/hooks';
import { follow, type StreamStatus } from '../api/sse';
import { queryString, type Query } from '../api/client';
import type { AuditEntry } from '../api/types';

export interface Loaded<T> {
  value: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `deps` change (the previous run aborted); the latest answer wins. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ value?: T; error?: Error; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    load(controller.signal).then(
      (value) => !controller.signal.aborted && setState({ value, loading: false }),
      (error: unknown) =>
        !controller.signal.aborted && setState({ error: error instanceof Error ? error : new Error(String(error)), loading: false }),
    );
    return () => controller.abort();
  }, [...deps, tick]);
  return { value: state.value, error: state.error, loading: state.loading, reload: () => setTick((t) => t + 1) };
}

/**
 * Follows an environment's audit log stream (`…/stream`, server-sent events)
 * while `enabled`: `onEntry` for each matching entry, from `after` (default:
 * the head, new events only). Reconnects with the last position seen.
 */
export function useEventStream(
  key: string,
  path: string | null,
  filters: Query,
  enabled: boolean,
  onEntry: (entry: AuditEntry) => void,
  after?: number,
): StreamStatus {
  const [status, setStatus] = useState<StreamStatus>('closed');
  const handler = useRef(onEntry);
  handler.current = onEntry;
  const filterText = queryString({ ...filters, after });
  useEffect(() => {
    if (!enabled || path === null) {
      setStatus('closed');
      return undefined;
    }
    const controller = new AbortController();
    void follow(`${path}/stream${filterText}`, {
      key,
      signal: controller.signal,
      onStatus: setStatus,
      onMessage: (message) => {
        if (message.event !== 'message') return;
        try {
          handler.current(JSON.parse(message.data) as AuditEntry);
        } catch {
          // not an entry: ignored
        }
      },
    });
    return () => controller.abort();
  }, [key, path, filterText, enabled]);
  return status;
}

/** Calls `fn` at most once per `ms`, with the last arguments (trailing). */
export function useDebounced(fn: () => void, ms: number): () => void {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  return () => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => latest.current(), ms);
  };
}
