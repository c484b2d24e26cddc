import type { EventMetadata, NewEvent } from '../events/envelope';
import { eventJson, sizeOver } from './event-json';

const metadata: EventMetadata = { actor: null, timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };

describe('event JSON', () => {
  it('serialises an event once, and its metadata once for all the events sharing it', () => {
    const one: NewEvent = { type: 'A', data: { n: 1 }, metadata };
    const two: NewEvent = { type: 'B', data: { n: 2 }, metadata };
    const json = eventJson(one);
    expect(json).toEqual({ data: '{"n":1}', metadata: JSON.stringify(metadata) });
    expect(eventJson(one)).toBe(json);
    expect(eventJson(two).metadata).toBe(json.metadata);
  });

  it('throws for what JSON cannot represent', () => {
    expect(() => eventJson({ type: 'A', data: undefined, metadata })).toThrow(TypeError);
    expect(() => eventJson({ type: 'A', data: { n: 1n }, metadata })).toThrow(TypeError);
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expect(() => eventJson({ type: 'A', data: deep, metadata })).toThrow(RangeError);
  });

  it('measures UTF-8 bytes against a limit', () => {
    expect(sizeOver('x'.repeat(10), 10)).toBeUndefined();
    expect(sizeOver('x'.repeat(11), 10)).toBe(11);
    expect(sizeOver('é'.repeat(5), 10)).toBeUndefined();
    expect(sizeOver('é'.repeat(6), 10)).toBe(12);
    expect(sizeOver('😀'.repeat(3), 11)).toBe(12);
  });
});
