import type { RecordedEvent } from '../events';
import { MAX_RUN, stepsOf } from './runs';

let position = 0;
const event = (type: string, stream = 'env-a', data: Record<string, unknown> = {}): RecordedEvent => ({
  position: ++position,
  streamId: stream,
  streamVersion: position,
  type,
  data: {
    id: `x${position}`,
    user: 'u',
    role: 'r',
    resource: 'folder',
    tenant: 't',
    resourceInstance: 'folder:f',
    expiresAt: 'e',
    ...data,
  },
  metadata: { actor: null, timestamp: '2030-01-01T00:00:00.000Z', schemaVersion: 1 },
});
const expiry = (stream = 'env-a', data: Record<string, unknown> = {}) => event('RoleAssignmentExpired', stream, data);

/** The steps as run lengths (a single event: its type). */
const shape = (batch: RecordedEvent[]) => [...stepsOf(batch)].map((step) => ('run' in step ? step.run.length : step.event.type));

describe('runs of expiries in a batch', () => {
  it('groups consecutive expiries of one environment on resource instances, and nothing else', () => {
    const batch = [
      event('RoleAssigned'),
      expiry(),
      expiry(),
      expiry(),
      event('RelationshipTupleExpired'),
      expiry(),
      expiry('env-a', { resourceInstance: null, resource: null }),
      expiry(),
      expiry('env-b'),
      expiry('env-b'),
    ];
    expect(shape(batch)).toEqual([
      'RoleAssigned',
      3,
      'RelationshipTupleExpired',
      'RoleAssignmentExpired',
      'RoleAssignmentExpired',
      'RoleAssignmentExpired',
      2,
    ]);
  });

  it('keeps the events in their order, and cuts a run at its largest size', () => {
    const batch = Array.from({ length: MAX_RUN + 5 }, () => expiry());
    const steps = [...stepsOf(batch)];
    expect(steps.map((step) => ('run' in step ? step.run.length : 1))).toEqual([MAX_RUN, 5]);
    expect(steps.flatMap((step) => ('run' in step ? step.run : [step.event]))).toEqual(batch);
  });
});
