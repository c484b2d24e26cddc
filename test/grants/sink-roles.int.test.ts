import type { GrantDoc } from '../../shared/read-models/grants/model';
import { grantId } from '../../shared/read-models/grants/model';
import { cmd, ENV, GrantsHarness, ReadSide } from './support/harness';

/**
 * Sink roles (no rule starts from them): their derived grants are implied when read, not stored
 * (docs/grants.md, "Sink roles"). The answers are the randomized test's business; this one checks
 * which rows the projection keeps as roles become sinks and stop being ones.
 */
describe('grants of sink roles', () => {
  let h: GrantsHarness;
  const keys = (grants: GrantDoc[]) => grants.map((g) => `${g.user}|${g.instance}|${g.role}|${g.reason.kind}`).sort();

  beforeEach(async () => {
    h = await new GrantsHarness().start();
    await h.must(cmd.resource('folder', ['read']));
    await h.must(cmd.resource('file', ['read']));
    await h.must(cmd.resource('page', ['read']));
    await h.must(cmd.role('folder', 'editor', ['read']));
    await h.must(cmd.role('file', 'editor', ['read']));
    await h.must(cmd.role('page', 'editor', ['read']));
    await h.must(cmd.relation('file', 'parent', 'folder'));
    await h.must(cmd.relation('page', 'parent', 'file'));
    await h.must(cmd.derive('file', 'editor', 'folder', 'editor', 'parent'));
    await h.must(cmd.tenant('acme'));
    for (const ref of ['folder:f', 'file:d1', 'file:d2', 'page:p1'])
      await h.must(cmd.instance(ref.split(':')[0]!, ref.split(':')[1]!, 'acme'));
    await h.must(cmd.tuple('folder:f', 'parent', 'file:d1'));
    await h.must(cmd.tuple('folder:f', 'parent', 'file:d2'));
    await h.must(cmd.tuple('file:d1', 'parent', 'page:p1'));
    await h.must(cmd.assign('alice', 'editor', 'folder:f', 'acme'));
    await h.must(cmd.assign('bob', 'editor', 'file:d2', 'acme'));
    await h.settle();
  });
  afterEach(() => h.close());

  const everyGrant = [
    'alice|file:d1|editor|derivation',
    'alice|file:d2|editor|derivation',
    'alice|folder:f|editor|assignment',
    'bob|file:d2|editor|assignment',
  ];

  it('stores only the direct grants of a sink role, and reads the derived ones as implied', async () => {
    expect(keys(await h.read.storedGrants())).toEqual(['alice|folder:f|editor|assignment', 'bob|file:d2|editor|assignment']);
    expect(keys(await h.read.allGrants())).toEqual(everyGrant);
    const check = (user: string, key: string) =>
      h.read.queries.check(ENV, { user, action: 'read', resource: { type: 'file', key, tenant: null } });
    expect((await check('alice', 'd1')).allow).toBe(true);
    expect((await check('bob', 'd1')).allow).toBe(false);
    // The explanation of an implied grant starts at the folder's assignment.
    const explained = await h.read.queries.check(
      ENV,
      { user: 'alice', action: 'read', resource: { type: 'file', key: 'd1', tenant: null } },
      true,
    );
    const chain = explained.explanation!.granted_by[0]!;
    expect(chain.kind === 'resource_role' && chain.chain.map((s) => s.step)).toEqual(['role_assignment', 'role_derivation']);
  });

  it('stores a role’s derived grants once a rule starts from it, and deletes them when none does again', async () => {
    await h.must(cmd.derive('page', 'editor', 'file', 'editor', 'parent'));
    await h.settle();
    // file#editor is a source now: its derived grants are stored; page#editor is the sink.
    expect(keys(await h.read.storedGrants())).toEqual([
      'alice|file:d1|editor|derivation',
      'alice|file:d2|editor|derivation',
      'alice|folder:f|editor|assignment',
      'bob|file:d2|editor|assignment',
    ]);
    expect(keys(await h.read.allGrants())).toEqual([...everyGrant, 'alice|page:p1|editor|derivation'].sort());

    await h.must(cmd.underive('page', 'editor', 'file', 'editor', 'parent'));
    await h.settle();
    expect(keys(await h.read.storedGrants())).toEqual(['alice|folder:f|editor|assignment', 'bob|file:d2|editor|assignment']);
    expect(keys(await h.read.allGrants())).toEqual(everyGrant);
  });

  it('keeps a sink role’s direct grant when it is also derived, and its derivation when the assignment goes', async () => {
    await h.must(cmd.assign('alice', 'editor', 'file:d1', 'acme'));
    await h.settle();
    expect(keys(await h.read.allGrants())).toContain('alice|file:d1|editor|assignment');
    await h.must(cmd.unassign('alice', 'editor', 'file:d1', 'acme'));
    await h.settle();
    expect(keys(await h.read.storedGrants())).not.toContain('alice|file:d1|editor|derivation');
    expect(keys(await h.read.allGrants())).toEqual(everyGrant);
  });

  it('deletes the rows of sink roles that a read model written before sink roles were implied holds, at its next event', async () => {
    // As a service upgraded in place: the projection stops, the new one starts on the same read models.
    await h.read.runner.stop();
    const grants = h.read.grants;
    const doc = (await grants.rules(ENV))!;
    await grants.putRules({ ...doc, sinks_implied: false });
    const parent = grantId(ENV, 'alice', 'folder:f', 'editor');
    const stale: GrantDoc = {
      id: grantId(ENV, 'carol', 'file:d1', 'editor'),
      environment_id: ENV,
      user: 'carol',
      instance: 'file:d1',
      resource: 'file',
      role: 'editor',
      tenant: 'acme',
      from_grant: parent,
      reason: {
        kind: 'derivation',
        from_grant: parent,
        tuple: { id: 'gone', subject: 'folder:f', relation: 'parent', object: 'file:d1' },
        rule: { onResource: 'folder', role: 'editor', relation: 'parent' },
      },
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    await grants.put([stale]);
    const upgraded = new ReadSide(h.read.store, h.events);
    await upgraded.runner.start();
    await h.must(cmd.tenant('other'));
    await h.must(cmd.assign('dave', 'editor', 'folder:f', 'acme'));
    await h.settle(upgraded);
    await upgraded.runner.stop();
    expect(await grants.get(stale.id)).toBeNull();
    expect((await grants.rules(ENV))!.sinks_implied).toBe(true);
    expect(keys(await h.read.storedGrants())).toEqual([
      'alice|folder:f|editor|assignment',
      'bob|file:d2|editor|assignment',
      'dave|folder:f|editor|assignment',
    ]);
  });
});
