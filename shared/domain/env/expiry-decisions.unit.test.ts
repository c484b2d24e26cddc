import { DuplicateEntityError } from '../../errors';
import type { EnvEvent } from '../../events';
import { deciderSpecification } from '../../testing/decider-specification';
import { envDecider } from './decider';
import { earliestDue, MAX_EXPIRIES_PER_COMMAND, MAX_EXPIRY_BYTES_PER_COMMAND } from './expiry-decisions';

const spec = deciderSpecification(envDecider);

const schema: EnvEvent[] = [
  { type: 'ResourceCreated', data: { id: 'r-f', key: 'folder', name: 'F', description: null, actions: [], attributes: {} } },
  {
    type: 'RoleCreated',
    data: { id: 'ro', key: 'editor', resource: 'folder', name: 'E', description: null, permissions: [], attributes: {} },
  },
  {
    type: 'RelationCreated',
    data: { id: 'rel', key: 'parent', name: 'P', description: null, objectResource: 'folder', subjectResource: 'folder' },
  },
  { type: 'TenantCreated', data: { id: 't', key: 'acme', name: 'acme', description: null, attributes: {} } },
  { type: 'UserCreated', data: { id: 'u', key: 'alice', email: null, firstName: null, lastName: null, attributes: {} } },
  { type: 'ResourceInstanceCreated', data: { id: 'i-a', key: 'a', resource: 'folder', tenant: 'acme', attributes: {} } },
  { type: 'ResourceInstanceCreated', data: { id: 'i-b', key: 'b', resource: 'folder', tenant: 'acme', attributes: {} } },
];
const assignment = { id: 'as', user: 'alice', role: 'editor', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:a' };
const tuple = { id: 'tu', subject: 'folder:a', relation: 'parent', object: 'folder:b', tenant: 'acme' };
const assign = (expiresAt?: string | null) => ({
  type: 'AssignRole' as const,
  id: 'new',
  newUserId: 'nu',
  user: 'alice',
  role: 'editor',
  tenant: null,
  resourceInstance: 'folder:a',
  ...(expiresAt === undefined ? {} : { expiresAt }),
});

describe('ends of assignments and tuples in the environment decider', () => {
  it('writes a new assignment with its end, and moves the end of an existing one written again', () => {
    spec
      .given(schema)
      .when(assign('2030-01-01T00:00:01.000Z'))
      .then([{ type: 'RoleAssigned', data: { ...assignment, id: 'new', expiresAt: '2030-01-01T00:00:01.000Z' } }]);
    const existing: EnvEvent[] = [...schema, { type: 'RoleAssigned', data: { ...assignment, expiresAt: '2030-01-01T00:00:01.000Z' } }];
    spec
      .given(existing)
      .when(assign('2030-01-01T00:00:09.000Z'))
      .then([{ type: 'RoleAssignmentExpirySet', data: { ...assignment, expiresAt: '2030-01-01T00:00:09.000Z' } }]);
    spec
      .given(existing)
      .when(assign(null))
      .then([{ type: 'RoleAssignmentExpirySet', data: { ...assignment, expiresAt: null } }]);
    spec
      .given(existing)
      .when(assign())
      .thenThrows(DuplicateEntityError, /already has role/);
  });

  it('takes a write of an assignment whose end has passed (its expiry not yet appended) as a new one, after its expiry', () => {
    const ended: EnvEvent[] = [...schema, { type: 'RoleAssigned', data: { ...assignment, expiresAt: '2030-01-01T00:00:02.000Z' } }];
    spec
      .given(ended)
      .when({ ...assign(), now: '2030-01-01T00:00:02.000Z' })
      .then([
        { type: 'RoleAssignmentExpired', data: { ...assignment, expiresAt: '2030-01-01T00:00:02.000Z' } },
        { type: 'RoleAssigned', data: { ...assignment, id: 'new' } },
      ]);
    spec
      .given(ended)
      .when({ ...assign(), now: '2030-01-01T00:00:01.999Z' })
      .thenThrows(DuplicateEntityError, /already has role/);
  });

  it('expires every end due at the command instant, in the order of the ends, each with its own end', () => {
    spec
      .given([
        ...schema,
        { type: 'RelationshipTupleCreated', data: { ...tuple, expiresAt: '2030-01-01T00:00:01.000Z' } },
        { type: 'RoleAssigned', data: { ...assignment, expiresAt: '2030-01-01T00:00:02.000Z' } },
      ])
      .when({ type: 'ExpireDue', now: '2030-01-01T00:00:05.000Z' })
      .then([
        { type: 'RelationshipTupleExpired', data: { ...tuple, expiresAt: '2030-01-01T00:00:01.000Z' } },
        { type: 'RoleAssignmentExpired', data: { ...assignment, expiresAt: '2030-01-01T00:00:02.000Z' } },
      ]);
  });

  it('expires nothing before an end, at a moved end, after a removed end, or twice', () => {
    const assigned: EnvEvent[] = [...schema, { type: 'RoleAssigned', data: { ...assignment, expiresAt: '2030-01-01T00:00:02.000Z' } }];
    spec.given(assigned).when({ type: 'ExpireDue', now: '2030-01-01T00:00:01.999Z' }).then([]);
    spec
      .given([...assigned, { type: 'RoleAssignmentExpirySet', data: { ...assignment, expiresAt: '2030-01-01T00:00:09.000Z' } }])
      .when({ type: 'ExpireDue', now: '2030-01-01T00:00:05.000Z' })
      .then([]);
    spec
      .given([...assigned, { type: 'RoleAssignmentExpirySet', data: { ...assignment, expiresAt: null } }])
      .when({ type: 'ExpireDue', now: '2031-01-01T00:00:00.000Z' })
      .then([]);
    spec
      .given([...assigned, { type: 'RoleAssignmentExpired', data: { ...assignment, expiresAt: '2030-01-01T00:00:02.000Z' } }])
      .when({ type: 'ExpireDue', now: '2031-01-01T00:00:00.000Z' })
      .then([]);
    // At the end itself it is due.
    spec
      .given(assigned)
      .when({ type: 'ExpireDue', now: '2030-01-01T00:00:02.000Z' })
      .thenContains([{ type: 'RoleAssignmentExpired' }]);
  });

  it("keeps a command's expiries under its byte budget when the facts' keys are long, and the next commands take the rest in order", () => {
    // A command's worth of assignments whose user and instance keys are at their longest: together
    // far more than the budget (about 1.7 MB as JSON), each end one millisecond after the last.
    const long = (prefix: string, i: number) => `${prefix}${String(i).padStart(4, '0')}`.padEnd(256, 'x');
    const ends = Array.from({ length: MAX_EXPIRIES_PER_COMMAND }, (_, i) => new Date(Date.UTC(2030, 0, 1) + i).toISOString());
    const assigned: EnvEvent[] = ends.map((expiresAt, i) => ({
      type: 'RoleAssigned',
      data: { ...assignment, id: `as${i}`, user: long('u', i), resourceInstance: `folder:${long('f', i)}`, expiresAt },
    }));
    const evolve = (state: ReturnType<typeof envDecider.initialState>, e: EnvEvent) => envDecider.evolve(state, e);
    let state = [...schema, ...assigned].reduce(evolve, envDecider.initialState());
    const expired: string[] = [];
    for (let command = 0; command < 10; command++) {
      const events = envDecider.decide({ type: 'ExpireDue', now: '2031-01-01T00:00:00.000Z' }, state);
      if (events.length === 0) break;
      const bytes = events.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e.data)), 0);
      expect(bytes).toBeLessThanOrEqual(MAX_EXPIRY_BYTES_PER_COMMAND);
      expect(events.length).toBeLessThan(MAX_EXPIRIES_PER_COMMAND);
      for (const e of events) expired.push(e.type === 'RoleAssignmentExpired' ? e.data.id : '?');
      state = events.reduce(evolve, state);
    }
    expect(expired).toEqual(assigned.map((e) => e.data.id));
  });
});

describe('earliestDue', () => {
  it('takes the earliest ends due, in order, ties in the order the state holds them, as sorting them all would', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const ends = new Map<string, string>();
    for (let i = 0; i < 2_000; i++)
      ends.set(`a|${Math.floor(random() * 1e9)}-${i}`, `2030-01-01T00:00:${String(Math.floor(random() * 20)).padStart(2, '0')}.000Z`);
    const now = '2030-01-01T00:00:15.000Z';
    // The reference: every end due, sorted by end (a stable sort keeps the state's order of ties).
    const reference = [...ends].filter(([, end]) => end <= now).sort(([, a], [, b]) => (a < b ? -1 : a > b ? 1 : 0));
    expect(reference.length).toBeGreaterThan(1_000);
    for (const limit of [0, 1, 10, 999, reference.length, reference.length + 5]) {
      expect(earliestDue(ends, now, limit)).toEqual(reference.slice(0, limit));
    }
  });
});
