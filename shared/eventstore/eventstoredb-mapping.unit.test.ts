import {
  ANY,
  MaxAppendSizeExceededError,
  NO_STREAM,
  UnavailableError as EsdbUnavailableError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import { PayloadTooLargeError, StreamVersionConflictError, UnavailableError } from '../errors';
import { inCategories, positionOf, toExpectedRevision, toPosition, translateError, versionNumber } from './eventstoredb-mapping';

describe('EventStoreDB vocabulary', () => {
  it('maps expected versions to expected revisions (both start at 0)', () => {
    expect(toExpectedRevision('any')).toBe(ANY);
    expect(toExpectedRevision('no_stream')).toBe(NO_STREAM);
    expect(toExpectedRevision(0)).toBe(0n);
    expect(toExpectedRevision(41)).toBe(41n);
    expect(versionNumber(7n)).toBe(7);
    expect(versionNumber(NO_STREAM)).toBe(-1);
  });

  it('uses the commit position as our position and resumes from {commit, prepare} equal to it', () => {
    expect(toPosition(1234)).toEqual({ commit: 1234n, prepare: 1234n });
    expect(positionOf({ position: { commit: 1234n, prepare: 1234n } })).toBe(1234);
    // What an older server sends on stream reads when it does not know the position (an unsigned -1).
    expect(positionOf({ position: { commit: 18446744073709551615n, prepare: 18446744073709551615n } })).toBeNull();
    expect(positionOf({ position: undefined })).toBeNull();
  });

  it('keeps system streams and unwanted categories out', () => {
    expect(inCategories('$ce-env', null)).toBe(false);
    expect(inCategories('env-1', null)).toBe(true);
    expect(inCategories('env-1', new Set(['task']))).toBe(false);
    expect(inCategories('task-1', new Set(['task']))).toBe(true);
  });

  it('translates a wrong expected version into our conflict error, with our numbers', () => {
    const wrong = new WrongExpectedVersionError(undefined, { streamName: 'env-1', expected: 0n, current: 3n });
    const translated = translateError(wrong, 'env-1', 0);
    expect(translated).toBeInstanceOf(StreamVersionConflictError);
    expect(translated).toMatchObject({ streamId: 'env-1', expected: 0, actual: 3 });
    const missing = new WrongExpectedVersionError(undefined, { streamName: 'env-2', expected: 0n, current: NO_STREAM } as never);
    expect(translateError(missing, 'env-2', 0)).toMatchObject({ expected: 0, actual: -1 });
    expect(translateError(wrong, 'env-1', 'no_stream')).toMatchObject({ expected: -1, actual: 3 });
  });

  it('translates an unreachable server into UnavailableError, and leaves the unknown alone', () => {
    expect(translateError(new EsdbUnavailableError({ code: 14, details: 'down', message: 'down' } as never), '$all')).toBeInstanceOf(
      UnavailableError,
    );
    const other = new Error('boom');
    expect(translateError(other, 'env-1')).toBe(other);
  });

  it("translates an append over the server's maximum append size into a 413 naming the limit", () => {
    const translated = translateError(new MaxAppendSizeExceededError(undefined, 1_048_576), 'env-1', 0);
    expect(translated).toBeInstanceOf(PayloadTooLargeError);
    expect((translated as Error).message).toContain('1048576 bytes');
  });
});
