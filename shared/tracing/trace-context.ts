/**
 * W3C trace context (https://www.w3.org/TR/trace-context/) as the event
 * metadata carries it, read without the SDK: the audit log shows the trace id
 * of an event whether or not this process traces.
 */
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** The trace id of a `traceparent` header value; null when it is absent or malformed. */
export function traceIdOf(traceparent: string | undefined): string | null {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  return match ? match[1]! : null;
}
