import { KeyIds } from './key-ids';

describe('KeyIds', () => {
  const found = (id: string) => jest.fn(async () => id);

  it('asks once for an id that was found, and again for one that was not', async () => {
    const ids = new KeyIds();
    const hit = found('id-1');
    expect(await ids.of('env', 'tenant', 'acme', hit)).toBe('id-1');
    expect(await ids.of('env', 'tenant', 'acme', hit)).toBe('id-1');
    expect(hit).toHaveBeenCalledTimes(1);

    const miss = found('');
    await ids.of('env', 'tenant', 'nobody', miss);
    await ids.of('env', 'tenant', 'nobody', miss);
    expect(miss).toHaveBeenCalledTimes(2);
  });

  it('keeps environments and kinds apart, and forgets deleted objects', async () => {
    const ids = new KeyIds();
    ids.set('env', 'instance', 'folder:a', 'id-a');
    expect(await ids.of('other-env', 'instance', 'folder:a', found('id-b'))).toBe('id-b');
    expect(await ids.of('env', 'tenant', 'folder:a', found('id-c'))).toBe('id-c');
    ids.forget('env', 'instance', 'folder:a');
    expect(await ids.of('env', 'instance', 'folder:a', found('id-d'))).toBe('id-d');
  });

  it('drops everything when events arrive out of order (a replay after a rollback)', async () => {
    const ids = new KeyIds();
    ids.observe(10);
    ids.set('env', 'tenant', 'acme', 'rolled-back');
    ids.observe(5);
    expect(await ids.of('env', 'tenant', 'acme', found('stored'))).toBe('stored');
  });

  it('stays bounded', async () => {
    const ids = new KeyIds(2);
    ids.set('env', 'tenant', 'a', '1');
    ids.set('env', 'tenant', 'b', '2');
    ids.set('env', 'tenant', 'c', '3');
    expect(await ids.of('env', 'tenant', 'a', found('fresh'))).toBe('fresh');
  });
});
