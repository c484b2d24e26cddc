import { SerialisedEvent } from '../../shared/eventstore/event-json';
import { defaultTenantAfter } from './copy-to-new';

const metadata = { actor: null, timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };
/** An event as the copy's text path makes it, counting how often its data is read (the first read parses it). */
function copied(type: string, data: object, reads: { count: number }): SerialisedEvent {
  class Counted extends SerialisedEvent {
    override get data(): unknown {
      reads.count += 1;
      return super.data;
    }
  }
  return new Counted(type, { data: JSON.stringify(data), metadata: JSON.stringify(metadata) }, metadata);
}

describe('following the default tenant through a copy', () => {
  it('follows its creation and deletion in order', () => {
    const reads = { count: 0 };
    const created = copied('TenantCreated', { id: 't1', key: 'default' }, reads);
    const deleted = copied('TenantDeleted', { id: 't1', key: 'default' }, reads);
    const other = copied('TenantCreated', { id: 't2', key: 'acme' }, reads);
    expect(defaultTenantAfter([created], false)).toBe(true);
    expect(defaultTenantAfter([created, deleted], false)).toBe(false);
    expect(defaultTenantAfter([deleted, created, other], true)).toBe(true);
    expect(defaultTenantAfter([other], false)).toBe(false);
  });

  it('reads the data of tenant events alone, so the other copied events are never parsed', () => {
    const reads = { count: 0 };
    const events = [
      copied('UserCreated', { id: 'u1', key: 'default' }, reads),
      copied('ResourceInstanceCreated', { id: 'i1', key: 'default', resource: 'doc', tenant: 'default' }, reads),
      copied('TenantCreated', { id: 't1', key: 'default' }, reads),
    ];
    expect(defaultTenantAfter(events, false)).toBe(true);
    expect(reads.count).toBe(1);
  });
});
