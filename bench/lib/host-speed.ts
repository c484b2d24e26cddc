import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';

/**
 * How fast this host is running right now, so that rows measured in seconds (the copies, the
 * rebuild, the bulk load) can be read across runs. This machine is a 2-vCPU KVM guest whose speed
 * changes by up to 2× over a day with nothing of ours running, for bare express as for the
 * copies (docs/bench-history/2026-11-29.md, "the same code on a faster host").
 *
 * The probe is a fixed piece of the work the projections do: documents through JSON and SHA-1,
 * and rows into an in-memory SQLite table with an index. It runs three times and keeps the
 * fastest, the least disturbed by whatever else the host does. Lower is faster; compare probes
 * of the same commit across runs, not across machines.
 */
export interface HostProbe {
  /** µs per document: JSON.stringify, JSON.parse and a SHA-1 of it. */
  jsUs: number;
  /** µs per row inserted into an indexed in-memory table, in one transaction. */
  sqliteUs: number;
}

const DOCUMENTS = 5_000;
const ROWS = 10_000;

export function probeHost(): HostProbe {
  let jsUs = Infinity;
  let sqliteUs = Infinity;
  for (let round = 0; round < 3; round++) {
    jsUs = Math.min(jsUs, jsRound());
    sqliteUs = Math.min(sqliteUs, sqliteRound());
  }
  return { jsUs: round2(jsUs), sqliteUs: round2(sqliteUs) };
}

function jsRound(): number {
  const started = performance.now();
  let sink = 0;
  for (let i = 0; i < DOCUMENTS; i++) {
    const text = JSON.stringify(documentOf(i));
    const parsed = JSON.parse(text) as { key: string };
    sink += createHash('sha1').update(text).digest()[0]! + parsed.key.length;
  }
  if (sink < 0) throw new Error('unreachable: keeps the work from being optimised away');
  return ((performance.now() - started) * 1000) / DOCUMENTS;
}

function sqliteRound(): number {
  const db = new Database(':memory:');
  try {
    db.exec('CREATE TABLE docs (id TEXT PRIMARY KEY, key TEXT, doc TEXT NOT NULL)');
    db.exec('CREATE INDEX docs_key ON docs (key)');
    const insert = db.prepare('INSERT INTO docs (id, key, doc) VALUES (?, ?, ?)');
    const started = performance.now();
    db.transaction(() => {
      for (let i = 0; i < ROWS; i++) {
        const doc = documentOf(i);
        insert.run(doc.id, doc.key, JSON.stringify(doc));
      }
    })();
    return ((performance.now() - started) * 1000) / ROWS;
  } finally {
    db.close();
  }
}

/** An instance-shaped document (about 300 bytes), its key spread so that the index takes rows at random places. */
function documentOf(i: number) {
  return {
    id: `0190c0de-${String(i).padStart(4, '0')}-7000-8000-000000000000`,
    key: `doc-${(i * 7919) % 100_003}`,
    tenant: 'default',
    resource: 'document',
    attributes: { owner: `user-${i % 97}`, size: i, tags: ['a', 'b'] },
    created_at: '2026-11-29T00:00:00.000Z',
    updated_at: '2026-11-29T00:00:00.000Z',
    organization_id: '0190c0de-0000-7000-8000-000000000001',
    project_id: '0190c0de-0000-7000-8000-000000000002',
  };
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The host's CPU counters (/proc/stat's first line), to tell how much of an interval the hypervisor took (steal). */
export interface CpuCounters {
  total: number;
  steal: number;
}

export function cpuCounters(): CpuCounters | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already counted in user).
    const total = fields.slice(0, 8).reduce((sum, n) => sum + n, 0);
    return { total, steal: fields[7] ?? 0 };
  } catch {
    return null;
  }
}

/** Percentage of the host's CPU time between `from` and now that the hypervisor gave to others; null off Linux. */
export function stealPercentSince(from: CpuCounters | null): number | null {
  const to = cpuCounters();
  if (!from || !to || to.total <= from.total) return null;
  return round2((100 * (to.steal - from.steal)) / (to.total - from.total));
}
