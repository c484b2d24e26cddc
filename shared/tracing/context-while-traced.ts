import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-node';

/**
 * The SDK's AsyncLocalStorage context manager, switched on only while a span is being recorded.
 *
 * On Node 20 an AsyncLocalStorage, once it has run anything, turns on the promise hooks for the
 * whole process, and from then on every promise of every request pays for them (a cached check
 * costs clearly more CPU with them: docs/tracing.md). Sampled at 1%, a trace needs them for its
 * own requests only: the count of recorded spans still open (this is also the provider's span
 * processor, told of each start and end) turns the storage off when it drops to none, and the next
 * sampled request's first `context.with` turns it on again. Unsampled requests never enter a
 * context (server-span.ts), so they run without the hooks whenever no sampled one is in flight.
 * Work that outlives every span (a promise a traced request left behind) finds no context then,
 * which is what it would find after its trace anyway.
 */
export class ContextWhileTraced extends AsyncLocalStorageContextManager implements SpanProcessor {
  private open = 0;

  /**
   * Work entered in a context while no span is recorded (the span processor's export, the HTTP
   * client's request under it, both suppressing tracing) turns the storage on as well; without
   * this it stayed on until the next sampled span ended, and every request in between paid. The
   * work's synchronous part ran in its context; what it awaits finds no context, as above.
   */
  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    try {
      return super.with(context, fn, thisArg, ...args);
    } finally {
      if (this.open === 0) this.disable();
    }
  }

  onStart(_span: Span, _parent: Context): void {
    this.open++;
  }

  onEnd(_span: ReadableSpan): void {
    if (--this.open === 0) this.disable();
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
