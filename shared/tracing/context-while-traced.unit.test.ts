import { AsyncLocalStorage } from 'node:async_hooks';
import { createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import type { Span } from '@opentelemetry/sdk-trace-node';
import { ContextWhileTraced } from './context-while-traced';

/** Whether the manager's storage is on (its promise hooks with it), read from the storage it holds. */
const storageOn = (manager: ContextWhileTraced): boolean =>
  Object.values(manager).some((value) => value instanceof AsyncLocalStorage && (value as unknown as { enabled: boolean }).enabled);

describe('ContextWhileTraced: the context storage is on only while a span is recorded', () => {
  const KEY = createContextKey('test');
  const span = {} as Span;

  it('turns the storage off after work entered while no span is recorded (an export), having run it in its context', () => {
    const manager = new ContextWhileTraced();
    const context = ROOT_CONTEXT.setValue(KEY, 'export');
    let seen: unknown;
    manager.with(context, () => (seen = manager.active().getValue(KEY)));
    expect(seen).toBe('export');
    expect(storageOn(manager)).toBe(false);
  });

  it('keeps it on while a span is recorded, and turns it off when the last one ends', () => {
    const manager = new ContextWhileTraced();
    manager.onStart(span, ROOT_CONTEXT);
    manager.onStart(span, ROOT_CONTEXT);
    manager.with(ROOT_CONTEXT.setValue(KEY, 'request'), () => undefined);
    expect(storageOn(manager)).toBe(true);
    manager.onEnd(span);
    expect(storageOn(manager)).toBe(true);
    manager.onEnd(span);
    expect(storageOn(manager)).toBe(false);
  });
});
