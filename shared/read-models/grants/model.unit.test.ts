import { grantId, instanceOfGrantId } from './model';

describe('grant ids', () => {
  it('give back their instance', () => {
    expect(instanceOfGrantId(grantId('env', 'alice', 'document:a:b', 'editor'))).toBe('document:a:b');
    expect(instanceOfGrantId(grantId('env', 'bob', 'folder:f_1-2', 'viewer'))).toBe('folder:f_1-2');
  });
});
