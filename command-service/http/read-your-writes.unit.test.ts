import { UnavailableError, ValidationError } from '../../shared/errors';
import { LONGEST_WAIT_MS, minPositionOf, SyncTimeoutError, syncWaitOf, waitForReadModels, type SyncWait } from './read-your-writes';

describe('the PDP’s wait headers', () => {
  const parse = (timeout?: string, policy?: string) =>
    syncWaitOf({
      ...(timeout === undefined ? {} : { 'x-wait-timeout': timeout }),
      ...(policy === undefined ? {} : { 'x-timeout-policy': policy }),
    });

  it('reads X-Wait-Timeout as the PDP does: seconds; empty or negative is no bound', () => {
    expect(parse()).toBeUndefined();
    expect(parse('2.5')).toEqual({ timeoutMs: 2500, policy: 'ignore' });
    expect(parse('0')).toEqual({ timeoutMs: 0, policy: 'ignore' });
    expect(parse('1e1', 'FAIL')).toEqual({ timeoutMs: 10_000, policy: 'fail' });
    expect(parse('')).toEqual({ timeoutMs: null, policy: 'ignore' });
    expect(parse('-1')).toEqual({ timeoutMs: null, policy: 'ignore' });
    expect(parse('Infinity')).toEqual({ timeoutMs: LONGEST_WAIT_MS, policy: 'ignore' });
    expect(parse('99999999')).toEqual({ timeoutMs: LONGEST_WAIT_MS, policy: 'ignore' });
    expect(parse(undefined, 'fail')).toEqual({ policy: 'fail' });
  });

  it('refuses a malformed header with a 422 naming it', () => {
    const loc = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return (error as ValidationError).detail[0]!.loc;
      }
      return null;
    };
    for (const bad of ['soon', 'nan', '1,2', '0x10']) expect([bad, loc(() => parse(bad))]).toEqual([bad, ['header', 'x-wait-timeout']]);
    expect(loc(() => parse('1', 'retry'))).toEqual(['header', 'x-timeout-policy']);
    expect(loc(() => minPositionOf({ 'x-min-event-position': '-1' }))).toEqual(['header', 'x-min-event-position']);
    expect(minPositionOf({})).toBe(0);
    expect(minPositionOf({ 'x-min-event-position': '42' })).toBe(42);
  });
});

describe('waitForReadModels', () => {
  /** Read models at position 10 that never move: records the bound each wait was given. */
  const stuck = () => {
    const bounds: number[] = [];
    return {
      bounds,
      freshness: {
        position: 10,
        waitForPosition: (_position: number, timeoutMs: number) => {
          bounds.push(timeoutMs);
          return Promise.resolve(false);
        },
      },
    };
  };
  const wait = async (sync: SyncWait | undefined) => {
    const { bounds, freshness } = stuck();
    const error = await waitForReadModels(freshness, 5000, 11, sync, (ms) => `not within ${ms}`).catch((e: unknown) => e);
    return { bound: bounds[0], error };
  };

  it('does not wait for a position the read models have', async () => {
    const { bounds, freshness } = stuck();
    await waitForReadModels(freshness, 5000, 10, { timeoutMs: 1, policy: 'fail' }, () => 'never');
    expect(bounds).toEqual([]);
  });

  it('without the headers, or with 0, waits READ_YOUR_WRITES_TIMEOUT_MS, then 503', async () => {
    for (const sync of [undefined, { policy: 'fail' as const }, { timeoutMs: 0, policy: 'fail' as const }]) {
      const { bound, error } = await wait(sync);
      expect(bound).toBe(5000);
      expect(error).toBeInstanceOf(UnavailableError);
    }
  });

  it('with `ignore`, waits the longer bound, then 503 (the answer needs the read models)', async () => {
    expect(await wait({ timeoutMs: 1000, policy: 'ignore' })).toEqual({ bound: 5000, error: expect.any(UnavailableError) });
    expect(await wait({ timeoutMs: 9000, policy: 'ignore' })).toEqual({ bound: 9000, error: expect.any(UnavailableError) });
    expect(await wait({ timeoutMs: null, policy: 'ignore' })).toEqual({ bound: LONGEST_WAIT_MS, error: expect.any(UnavailableError) });
  });

  it('with `fail`, waits X-Wait-Timeout, then 424 (SyncTimeoutError) saying where the write is', async () => {
    const { bound, error } = await wait({ timeoutMs: 1000, policy: 'fail' });
    expect(bound).toBe(1000);
    expect(error).toBeInstanceOf(SyncTimeoutError);
    expect((error as SyncTimeoutError).message).toBe('not within 1000 (X-Timeout-Policy: fail)');
    expect((error as SyncTimeoutError).additionalInfo).toEqual({ position: 11, waited_ms: 1000 });
    expect((await wait({ timeoutMs: null, policy: 'fail' })).bound).toBe(LONGEST_WAIT_MS);
  });
});
