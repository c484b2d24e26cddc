import { traceIdOf } from './trace-context';

describe('traceIdOf', () => {
  it('reads the trace id of a W3C traceparent', () => {
    expect(traceIdOf('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')).toBe('0af7651916cd43dd8448eb211c80319c');
  });

  it('gives null for none or a malformed one', () => {
    expect(traceIdOf(undefined)).toBeNull();
    expect(traceIdOf('')).toBeNull();
    expect(traceIdOf('00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01')).toBeNull();
    expect(traceIdOf('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331')).toBeNull();
  });
});
