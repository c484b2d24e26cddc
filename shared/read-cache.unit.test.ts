import { ReadCache } from './read-cache';

describe('ReadCache', () => {
  let position = 1;
  const now = () => position;
  beforeEach(() => {
    position = 1;
  });

  it('answers from the cache while the position stays, and drops everything when it moves', async () => {
    const cache = new ReadCache<string>(now, 10);
    let computed = 0;
    const compute = async () => `answer ${++computed}`;
    expect(await cache.through('q', compute)).toBe('answer 1');
    expect(await cache.through('q', compute)).toBe('answer 1');
    position = 2;
    expect(cache.get('q')).toBeUndefined();
    expect(await cache.through('q', compute)).toBe('answer 2');
  });

  it('does not keep an answer whose computation saw the position move', async () => {
    const cache = new ReadCache<string>(now, 10);
    const answer = await cache.through('q', async () => {
      position = 2; // the projection committed while the answer was being read
      return 'maybe mixed';
    });
    expect(answer).toBe('maybe mixed');
    expect(cache.get('q')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps at most maxEntries, dropping the oldest first', () => {
    const cache = new ReadCache<number>(now, 2);
    const at = cache.positionNow();
    cache.set('a', 1, at);
    cache.set('b', 2, at);
    cache.set('c', 3, at);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe(2);
    expect(cache.get('c')).toBe(3);
  });

  it('getAt answers only for the position it is given', () => {
    const cache = new ReadCache<number>(now, 10);
    const at = cache.positionNow();
    cache.set('a', 1, at);
    expect(cache.getAt('a', at)).toBe(1);
    position = 2;
    expect(cache.positionNow()).toBe(2);
    expect(cache.getAt('a', at)).toBeUndefined();
    expect(cache.getAt('a', 2)).toBeUndefined();
  });

  it('keeps nothing with maxEntries 0', async () => {
    const cache = new ReadCache<number>(now, 0);
    cache.set('a', 1, cache.positionNow());
    expect(cache.get('a')).toBeUndefined();
    let calls = 0;
    await cache.through('b', async () => ++calls);
    await cache.through('b', async () => ++calls);
    expect(calls).toBe(2);
  });
});
