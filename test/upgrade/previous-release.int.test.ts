import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import pino from 'pino';
import { startEmbedded } from '../../app/embedded';
import { embeddedFeatures } from '../../app/features';
import { loadConfig } from '../../shared/config';
import { LAYOUT_CHECKPOINT, READ_MODELS_LAYOUT } from '../../shared/read-models/layout';
import { ApiClient } from '../support/embedded-server';
import { answers, FIXTURE_ADMIN_KEY } from './support/previous-release-world';

/**
 * A data directory written by the previous release (commit 00d8a85, before the read models had a
 * layout; its history kept an open version of every current document), made by make-fixture.ts
 * with the answers that release gave. This release starts on it, empties the read models, replays
 * the log into its own layout, and answers every check and read, now and as of each moment, as
 * that release did.
 */
describe('a data directory written by the previous release', () => {
  const fixture = join(__dirname, 'fixtures', 'previous-release');
  const recorded = JSON.parse(readFileSync(join(fixture, 'answers.json'), 'utf8')) as {
    moments: number[];
    now: Record<string, unknown>;
    asOf: Record<string, Record<string, unknown>>;
  };
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'rebac-upgrade-'));
    cpSync(join(fixture, 'data'), dataDir, { recursive: true });
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const checkpoints = () => {
    const db = new Database(join(dataDir, 'read-models.sqlite'), { readonly: true });
    try {
      return Object.fromEntries(
        (db.prepare('SELECT name, position FROM rm_checkpoints').all() as Array<{ name: string; position: number }>).map((r) => [
          r.name,
          r.position,
        ]),
      );
    } finally {
      db.close();
    }
  };

  async function start() {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    // The projections on this thread, so that their log lines come here.
    const config = loadConfig({
      PORT: '0',
      DATA_DIR: dataDir,
      HTTP_WORKERS: '1',
      PROJECTION_THREAD: 'false',
      ADMIN_API_KEY: FIXTURE_ADMIN_KEY,
    });
    const service = await startEmbedded(config, pino({ level: 'info' }, sink), embeddedFeatures());
    return { service, lines, api: new ApiClient(service.url, FIXTURE_ADMIN_KEY) };
  }

  it('is rebuilt from the log into this layout, keeping the checkpoints that are not read models', async () => {
    const before = checkpoints();
    expect(before[LAYOUT_CHECKPOINT]).toBeUndefined();
    expect(before['read-models']).toBeGreaterThan(0);
    const { service, lines } = await start();
    try {
      expect(lines.find((l) => l.msg === 'read models of an older layout: emptying them to rebuild them from the log')).toMatchObject({
        layout: 1,
        expected: READ_MODELS_LAYOUT,
        position: before['read-models'],
      });
      expect(lines.find((l) => l.msg === 'projections replayed the log')).toMatchObject({ from: 0, events: before['read-models'] });
    } finally {
      await service.close();
    }
    const after = checkpoints();
    expect(after).toMatchObject({ [LAYOUT_CHECKPOINT]: READ_MODELS_LAYOUT, 'bootstrap-seed': before['bootstrap-seed'] });
    expect(after['read-models']).toBeGreaterThanOrEqual(before['read-models']!);
    // The history keeps closed versions only now: the open ones the previous release wrote are gone with the rebuild.
    const db = new Database(join(dataDir, 'read-models.sqlite'), { readonly: true });
    try {
      const open = db.prepare(`SELECT COUNT(*) AS n FROM rm_history_users WHERE f__to = ${Number.MAX_SAFE_INTEGER}`).get() as { n: number };
      const closed = db.prepare('SELECT COUNT(*) AS n FROM rm_history_users').get() as { n: number };
      expect({ open: open.n, closedSome: closed.n > 0 }).toEqual({ open: 0, closedSome: true });
    } finally {
      db.close();
    }

    // A second start finds its own layout: nothing is emptied.
    const again = await start();
    try {
      expect(again.lines.some((l) => l.msg === 'read models of an older layout: emptying them to rebuild them from the log')).toBe(false);
      expect(again.lines.find((l) => l.msg === 'projections starting')).toMatchObject({ from: after['read-models'] });
    } finally {
      await again.service.close();
    }
  });

  it('answers every check and read, now and as of each moment, as the previous release did', async () => {
    const { service, api } = await start();
    try {
      expect(recorded.moments).toHaveLength(4);
      expect(withoutNewFields(await answers(api))).toEqual(recorded.now);
      for (const moment of recorded.moments)
        expect({ moment, answers: withoutNewFields(await answers(api, moment)) }).toEqual({ moment, answers: recorded.asOf[moment] });
    } finally {
      await service.close();
    }
  });
});

/**
 * The answers without the fields this release added to what the previous one answered: `expires_at`
 * of assignments and tuples (docs/expiring-access.md), null for every fact the previous release
 * wrote (it had no ends). A non-null one is kept, and fails the comparison.
 */
function withoutNewFields<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutNewFields) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, member]) => !(key === 'expires_at' && member === null))
      .map(([key, member]) => [key, withoutNewFields(member)]),
  ) as T;
}
