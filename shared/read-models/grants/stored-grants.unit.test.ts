import { grantId, type GrantDoc } from './model';
import { grantOf, storedGrant } from './stored-grants';

const env = 'env-1';
const from = grantId(env, 'alice', 'folder:f1', 'editor');
const derived: GrantDoc = {
  id: grantId(env, 'alice', 'document:d1', 'editor'),
  environment_id: env,
  user: 'alice',
  instance: 'document:d1',
  resource: 'document',
  role: 'editor',
  tenant: 'default',
  from_grant: from,
  reason: {
    kind: 'derivation',
    from_grant: from,
    tuple: { id: 'tuple-1', subject: 'folder:f1', relation: 'parent', object: 'document:d1' },
    rule: { role: 'editor', onResource: 'folder', relation: 'parent' },
  },
  created_at: '2026-11-27T00:00:00.000Z',
  updated_at: '2026-11-27T00:00:01.000Z',
};

describe('grant rows', () => {
  it('stores a derivation without what the grant says already, and reads it back whole', () => {
    const stored = storedGrant(derived);
    expect(stored.reason).toEqual({
      kind: 'derivation',
      tuple: 'tuple-1',
      rule: derived.reason.kind === 'derivation' && derived.reason.rule,
    });
    expect(JSON.stringify(stored).length).toBeLessThan(JSON.stringify(derived).length * 0.8);
    expect(grantOf(JSON.parse(JSON.stringify(stored)))).toEqual(derived);
  });

  it('keeps an assignment as it is, and reads a row written whole before (or a partial read) unchanged', () => {
    const direct: GrantDoc = { ...derived, from_grant: null, reason: { kind: 'assignment', assignment_id: 'a-1' } };
    expect(storedGrant(direct)).toEqual(direct);
    expect(grantOf(direct)).toEqual(direct);
    expect(grantOf(derived)).toEqual(derived);
    const partial = { id: derived.id, role: 'editor' } as unknown as GrantDoc;
    expect(grantOf(partial)).toEqual(partial);
  });
});
