import type { Sql } from 'postgres';

/**
 * The event log's schema on PostgreSQL, created and migrated by the service itself.
 *
 * Each migration runs once and is recorded in `schema_migrations`; the pending ones run in one
 * transaction (PostgreSQL's DDL is transactional: a failed migration leaves the schema as it was),
 * under an advisory lock, so of replicas starting together one migrates and the others find it done.
 * A schema already current is only read, so a service can start on a read-only server.
 * A database migrated by a newer release (a version this one does not know) is refused: this
 * release cannot tell what the newer schema means.
 *
 * Never edit a migration that has shipped: add the next one.
 */

/** Advisory lock keys (one 64-bit space per database): the migration's, and the one appends serialise on. */
export const MIGRATION_LOCK = 0x7265_6261_6301; // "rebac" 01
export const APPEND_LOCK = 0x7265_6261_6302; // "rebac" 02

/** The channel appends notify on (payload: the categories they stored events in, comma-separated). */
export const APPEND_CHANNEL = 'rebac_events_appended';

interface Migration {
  version: number;
  description: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'events, streams, and the append function',
    sql: `
CREATE TABLE events (
  position       bigint PRIMARY KEY,
  stream_id      text   NOT NULL,
  category       text   NOT NULL,
  stream_version bigint NOT NULL,
  type           text   NOT NULL,
  data           text   NOT NULL,
  metadata       text   NOT NULL,
  UNIQUE (stream_id, stream_version)
);
CREATE INDEX events_by_category ON events (category, position);
CREATE TABLE streams (
  stream_id text   PRIMARY KEY,
  version   bigint NOT NULL
);

-- Appends a batch of appends (each to one stream, at its expected version) in the caller's
-- transaction: one statement, so one round trip and one commit for the whole batch.
-- expected: -2 any, -1 no stream, n the version of the stream's last event.
-- Returns one row per append, in order: conflict (and the stream's current version), or the
-- stream's new version and the position of its last event (0 for an append of no events).
-- Appends serialise on an advisory lock held until commit: positions are handed out under it, so
-- they commit in position order and a reader never sees a position while a lower one may still
-- commit (docs/distributed.md, "The global order").
CREATE FUNCTION append_events(
  p_streams text[], p_categories text[], p_expected bigint[], p_counts int[],
  p_types text[], p_data text[], p_metadata text[]
) RETURNS TABLE (out_conflict boolean, out_version bigint, out_position bigint)
LANGUAGE plpgsql AS $$
DECLARE
  head        bigint;
  at_version  bigint;
  n           int;
  taken       int := 0;
  stored      text[] := '{}';
BEGIN
  PERFORM pg_advisory_xact_lock(${APPEND_LOCK});
  -- A statement of its own, after the lock: its snapshot sees the previous holder's commit.
  SELECT coalesce(max(position), 0) INTO head FROM events;
  FOR i IN 1 .. coalesce(cardinality(p_streams), 0) LOOP
    n := p_counts[i];
    SELECT s.version INTO at_version FROM streams AS s WHERE s.stream_id = p_streams[i];
    IF NOT FOUND THEN at_version := -1; END IF;
    IF p_expected[i] <> -2 AND p_expected[i] <> at_version THEN
      out_conflict := true; out_version := at_version; out_position := 0;
    ELSIF n = 0 THEN
      out_conflict := false; out_version := at_version; out_position := 0;
    ELSE
      INSERT INTO events (position, stream_id, category, stream_version, type, data, metadata)
      SELECT head + g, p_streams[i], p_categories[i], at_version + g, p_types[taken + g], p_data[taken + g], p_metadata[taken + g]
      FROM generate_series(1, n) AS g;
      INSERT INTO streams (stream_id, version) VALUES (p_streams[i], at_version + n)
      ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version;
      head := head + n;
      stored := array_append(stored, p_categories[i]);
      out_conflict := false; out_version := at_version + n; out_position := head;
    END IF;
    taken := taken + n;
    RETURN NEXT;
  END LOOP;
  IF cardinality(stored) > 0 THEN
    PERFORM pg_notify('${APPEND_CHANNEL}', array_to_string(ARRAY(SELECT DISTINCT unnest(stored)), ','));
  END IF;
END
$$;
`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/** Brings the database's schema to SCHEMA_VERSION; returns the migrations it applied. */
export async function migrate<T extends Record<string, unknown>>(sql: Sql<T>): Promise<number[]> {
  const applied: number[] = [];
  const [table] = await sql<[{ exists: boolean }]>`SELECT to_regclass('schema_migrations') IS NOT NULL AS exists`;
  if (table?.exists) {
    const [found] = await sql<[{ version: number | null }]>`SELECT max(version) AS version FROM schema_migrations`;
    if (found?.version === SCHEMA_VERSION) return applied;
  }
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (
      version     integer     PRIMARY KEY,
      description text        NOT NULL,
      applied_at  timestamptz NOT NULL DEFAULT now()
    )`;
    const [row] = await tx<[{ version: number | null }]>`SELECT max(version) AS version FROM schema_migrations`;
    const current = row?.version ?? 0;
    if (current > SCHEMA_VERSION)
      throw new Error(
        `the event log's schema is at version ${current}, newer than this release knows (${SCHEMA_VERSION}): run a release at least as new`,
      );
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      await tx.unsafe(migration.sql);
      await tx`INSERT INTO schema_migrations (version, description) VALUES (${migration.version}, ${migration.description})`;
      applied.push(migration.version);
    }
  });
  return applied;
}
