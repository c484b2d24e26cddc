import { grantId, type GrantDoc } from '../../read-models/grants/model';
import { grantOfRecord, grantOfRow, grantRow, recordOf } from './rows';

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
  expires_at: null,
  created_at: '2026-11-27T00:00:00.000Z',
  updated_at: '2026-11-27T00:00:01.000Z',
};

describe('grant rows', () => {
  it('stores a derivation without what the grant says already, and reads it back whole', () => {
    const record = recordOf(derived);
    expect(record).toMatchObject({
      tuple_id: 'tuple-1',
      rule_on_resource: 'folder',
      rule_role: 'editor',
      rule_relation: 'parent',
      assignment_id: null,
    });
    expect(Object.values(record).filter((v) => v === 'folder:f1')).toEqual([]);
    expect(grantOfRecord(JSON.parse(JSON.stringify(record)))).toEqual(derived);
    expect(grantOfRow(grantRow(derived))).toEqual(derived);
  });

  it('keeps an assignment and an end as they are; a grant without an end reads back with null', () => {
    const direct: GrantDoc = {
      ...derived,
      from_grant: null,
      reason: { kind: 'assignment', assignment_id: 'a-1' },
      expires_at: '2027-01-01T00:00:00.000Z',
    };
    expect(grantOfRow(grantRow(direct))).toEqual(direct);
    const { expires_at: _none, ...endless } = derived;
    expect(grantOfRow(grantRow(endless as GrantDoc))).toEqual(derived);
  });
});
