/**
 * What the PostgreSQL event log's gap-safe order costs its appends: the shipped append_events
 * (appends serialise on an advisory lock, so positions commit in order) against the same
 * function without the lock, positions from a sequence and each row stamped with its
 * transaction id (the write side of the other gap-safe scheme, where readers stop below
 * pg_snapshot_xmin(pg_current_snapshot()); its readers' extra filter is not counted here).
 *
 *   POSTGRES_URL=postgres://postgres@127.0.0.1:15432/ node -r @swc-node/register bench/postgres-append-order.ts
 *
 * Env: PROCESSES (pools, as command-service replicas: 4), CONCURRENCY (appends in flight per pool: 32),
 * SECONDS (per variant: 10). Prints appends/s, events per commit and append latency p50/p99 per variant.
 */
import postgres from 'postgres';
import { PostgresEventStore } from '../shared/eventstore/postgres-event-store';
import { createTestDatabase } from '../shared/testing/postgres-database';

const UNORDERED_APPEND = `
ALTER TABLE events ADD COLUMN tx xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE SEQUENCE event_positions;
CREATE OR REPLACE FUNCTION append_events(
  p_streams text[], p_categories text[], p_expected bigint[], p_counts int[],
  p_types text[], p_data text[], p_metadata text[]
) RETURNS TABLE (out_conflict boolean, out_version bigint, out_position bigint)
LANGUAGE plpgsql AS $$
DECLARE at_version bigint; n int; taken int := 0; last bigint;
BEGIN
  FOR i IN 1 .. coalesce(cardinality(p_streams), 0) LOOP
    n := p_counts[i];
    -- The stream's row is locked instead of the log: appends to other streams go on in parallel.
    SELECT s.version INTO at_version FROM streams AS s WHERE s.stream_id = p_streams[i] FOR UPDATE;
    IF NOT FOUND THEN at_version := -1; END IF;
    IF p_expected[i] <> -2 AND p_expected[i] <> at_version THEN
      out_conflict := true; out_version := at_version; out_position := 0;
    ELSE
      INSERT INTO events (position, stream_id, category, stream_version, type, data, metadata)
      SELECT nextval('event_positions'), p_streams[i], p_categories[i], at_version + g, p_types[taken + g], p_data[taken + g], p_metadata[taken + g]
      FROM generate_series(1, n) AS g;
      SELECT currval('event_positions') INTO last;
      INSERT INTO streams (stream_id, version) VALUES (p_streams[i], at_version + n)
      ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version;
      out_conflict := false; out_version := at_version + n; out_position := last;
    END IF;
    taken := taken + n;
    RETURN NEXT;
  END LOOP;
END
$$;`;

const processes = Number(process.env.PROCESSES ?? 4);
const concurrency = Number(process.env.CONCURRENCY ?? 32);
const seconds = Number(process.env.SECONDS ?? 10);
const meta = { actor: 'key-1', requestId: 'r', correlationId: 'c', timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };

async function measure(name: string, serverUrl: string, alter: string | null): Promise<void> {
  const database = await createTestDatabase(serverUrl, 'rebac_bench_order');
  try {
    let commits = 0;
    const stores = await Promise.all(
      Array.from({ length: processes }, () =>
        PostgresEventStore.connect({ url: database.url, poolSize: 2, observer: { appended: () => undefined, committed: () => commits++ } }),
      ),
    );
    if (alter) {
      const sql = postgres(database.url, { max: 1, onnotice: () => undefined });
      await sql.unsafe(alter);
      await sql.end();
    }
    const latencies: number[] = [];
    const deadline = Date.now() + seconds * 1000;
    let n = 0;
    await Promise.all(
      stores.flatMap((store, p) =>
        Array.from({ length: concurrency }, async (_, c) => {
          while (Date.now() < deadline) {
            const started = performance.now();
            // A create: one event on a stream of its own, as most single writes are.
            await store.append(
              `env-${p}-${c}-${n++}`,
              [{ type: 'ResourceInstanceCreated', data: { key: `k${n}`, pad: 'x'.repeat(200) }, metadata: meta }],
              'no_stream',
            );
            latencies.push(performance.now() - started);
          }
        }),
      ),
    );
    await Promise.all(stores.map((s) => s.close()));
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
    console.log(
      `${name}: ${Math.round(latencies.length / seconds)} appends/s, ${(latencies.length / commits).toFixed(1)} appends per commit, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms (${processes} pools x ${concurrency} in flight)`,
    );
  } finally {
    await database.drop();
  }
}

async function main(): Promise<void> {
  const serverUrl = process.env.POSTGRES_URL;
  if (!serverUrl) throw new Error('POSTGRES_URL is not set (scripts/postgres.sh start prints one)');
  await measure('serialised (advisory lock, shipped)', serverUrl, null);
  await measure('parallel (sequence + xid, no lock) ', serverUrl, UNORDERED_APPEND);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
