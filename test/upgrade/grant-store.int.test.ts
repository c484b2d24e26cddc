import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startTestServer } from '../support/embedded-server';
import { projectionVersionCheckpoint } from '../../shared/read-models/layout';
import { Scenario } from '../grants/support/scenario';

/**
 * The derived grants moved from two generic collections (`rm_derived_grants`, `rm_derived_grant_rules`,
 * grants projection version 2) to their own store (`rm_grant_rows`, `rm_grant_rules`, version 3,
 * docs/read-stores.md). A data directory whose read models the previous layout wrote opens: the
 * grants are rebuilt from the log into their tables, the old collections go, and the checks and
 * lists answer as they did.
 */
describe('a data directory with the grants of the previous layout', () => {
  it('is rebuilt into the grant store, and answers checks and lists as before', async () => {
    const first = await startTestServer();
    const { dataDir } = first;
    const ask = async (s: Scenario) => ({
      derived: await s.allowed('alice', 'read', 'document:d1'),
      direct: await s.allowed('alice', 'write', 'folder:f0'),
      stored: await s.allowed('alice', 'write', 'folder:f1'),
      none: await s.allowed('bob', 'read', 'document:d1'),
      permissions: (await s.api.post('/user-permissions', { user: 'alice' })).body as unknown,
    });
    let answered: Awaited<ReturnType<typeof ask>>;
    let s: Scenario;
    try {
      s = await Scenario.create(first, 'upgrade');
      await s.resource('folder', ['read', 'write']);
      await s.resource('document', ['read']);
      await s.role('folder', 'editor', ['read', 'write']);
      await s.role('document', 'viewer', ['read']);
      await s.relation('document', 'parent', 'folder');
      await s.relation('folder', 'within', 'folder');
      // A stored derived grant (folder#editor: rules start from it) and an implied one (document#viewer, a sink).
      await s.derive('folder', 'editor', 'folder', 'editor', 'within');
      await s.derive('document', 'viewer', 'folder', 'editor', 'parent');
      await s.tenant('acme');
      await s.instance('folder:f0', 'acme');
      await s.instance('folder:f1', 'acme');
      await s.instance('document:d1', 'acme');
      await s.tuple('folder:f0', 'within', 'folder:f1');
      await s.tuple('folder:f1', 'parent', 'document:d1');
      await s.assign('alice', 'editor', 'folder:f0');
      answered = await ask(s);
      expect(answered).toMatchObject({ derived: true, direct: true, stored: true, none: false });
    } finally {
      await first.close({ keepData: true });
    }

    // The read models as the previous layout left them: the grants in the generic collections' tables, version 2 recorded.
    const file = join(dataDir, 'read-models.sqlite');
    const previous = new Database(file);
    try {
      const grants = previous.prepare('SELECT id, environment_id, user, instance, role FROM rm_grant_rows').all() as Array<
        Record<string, string>
      >;
      expect(grants.length).toBeGreaterThan(0);
      previous.exec('DROP TABLE rm_grant_rows; DROP TABLE rm_grant_rules');
      previous.exec(
        `CREATE TABLE rm_derived_grants (id TEXT PRIMARY KEY, "f_environment_id", "f_user", "f_instance", "f_resource", "f_role",
           "f_tenant", "f_from_grant", "f_expires_at", doc TEXT NOT NULL)`,
      );
      previous.exec(
        'CREATE INDEX rm_derived_grants__environment_id_instance_user ON rm_derived_grants ("f_environment_id", "f_instance", "f_user")',
      );
      previous.exec('CREATE TABLE rm_derived_grant_rules (id TEXT PRIMARY KEY, "f_environment_id", doc TEXT NOT NULL)');
      const insert = previous.prepare(
        'INSERT INTO rm_derived_grants (id, "f_environment_id", "f_user", "f_instance", "f_role", doc) VALUES (?, ?, ?, ?, ?, ?)',
      );
      for (const g of grants) insert.run(g.id, g.environment_id, g.user, g.instance, g.role, '{}');
      previous.prepare('UPDATE rm_checkpoints SET position = 2 WHERE name = ?').run(projectionVersionCheckpoint('derived-grants'));
    } finally {
      previous.close();
    }

    const second = await startTestServer({ dataDir });
    try {
      expect(await ask(s.on(second.url))).toEqual(answered);
    } finally {
      await second.close();
    }
    const after = new Database(file, { readonly: true });
    try {
      const tables = (
        after.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rm_%grant%' ORDER BY name").all() as Array<{
          name: string;
        }>
      ).map((t) => t.name);
      const version = after
        .prepare('SELECT position FROM rm_checkpoints WHERE name = ?')
        .get(projectionVersionCheckpoint('derived-grants')) as {
        position: number;
      };
      const rows = (after.prepare('SELECT COUNT(*) AS n FROM rm_grant_rows').get() as { n: number }).n;
      expect({ tables, version: version.position, rebuilt: rows > 0 }).toEqual({
        tables: ['rm_grant_rows', 'rm_grant_rules'],
        version: 3,
        rebuilt: true,
      });
    } finally {
      after.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
