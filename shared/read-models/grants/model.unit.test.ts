import { grantId, instanceOfGrantId, typeGrantIds } from './model';

describe('grant ids', () => {
  it('give back their instance', () => {
    expect(instanceOfGrantId(grantId('env', 'alice', 'document:a:b', 'editor'))).toBe('document:a:b');
    expect(instanceOfGrantId(grantId('env', 'bob', 'folder:f_1-2', 'viewer'))).toBe('folder:f_1-2');
  });

  it("of one user on one type are exactly the range typeGrantIds gives, whatever the other types' names", () => {
    const { $gt: after, $lt: before } = typeGrantIds('env', 'alice', 'folder') as { $gt: string; $lt: string };
    const inRange = (id: string) => id > after && id < before;
    // Types that begin with `folder` or sort next to it: digits and '-' sort below ':', letters and '_' above ';'.
    const others = ['folde', 'folder2', 'folder-x', 'folder_x', 'folderA', 'foldes', 'file'];
    for (const key of ['a', 'Z', '0', 'a:b', '_', '-', 'zzz']) {
      for (const role of ['editor', 'a', 'Z_1']) {
        expect({ key, role, in: inRange(grantId('env', 'alice', `folder:${key}`, role)) }).toEqual({ key, role, in: true });
        for (const type of others) {
          expect({ type, key, in: inRange(grantId('env', 'alice', `${type}:${key}`, role)) }).toEqual({ type, key, in: false });
        }
        // Another user's grants on the same type are another range.
        expect(inRange(grantId('env', 'bob', `folder:${key}`, role))).toBe(false);
        expect(inRange(grantId('env2', 'alice', `folder:${key}`, role))).toBe(false);
      }
    }
  });
});
