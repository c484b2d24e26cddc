import { CURRENT_SCHEMA_VERSION, type EnvEvent, type NewEvent } from '../../shared/events';
// The service's own ids (time-ordered), so the log is one the service would have written.
import { newId } from '../../shared/ids';

/**
 * A long-lived environment for the time-travel rows, as events to append
 * straight into its stream: accounts → folders → documents, with churn.
 *
 * - Schema: folder#editor ⇐ account#admin (via folder.account), document#editor
 *   ⇐ folder#editor (via document.parent); one account per tenant, whose admin
 *   is `adm<t>`.
 * - Unit i (6 events, plus churn): folder `f<i>` in tenant t = i mod 10, the
 *   tuple `account:a<t>` → `f<i>`, document `d<i>`, the tuple `f<i>` → `d<i>`,
 *   user `u<i>`, editor of `u<i>` on `f<i>`. Churn, four units later: unit i ≡ 0
 *   (mod 4) loses its assignment; unit i ≡ 2 (mod 4) has its folder → document
 *   tuple deleted and created again.
 * - The watched decision: every WATCH_EVERY units, the tuple `a0` → `f<WATCHED>`
 *   is deleted or created again, so `adm0`'s `write` on `d<WATCHED>` (two
 *   tuples up) flips all along the log.
 *
 * Event times start a day ago and advance 50 ms an event.
 */
export const WATCHED = 10;
const WATCH_EVERY = 2_500;
const TENANTS = 10;

export interface TimeTravelWorld {
  /** Batches of events for the environment's stream, `total` events in all (the last unit may be cut). */
  batches: Generator<NewEvent[]>;
  /** Units begun once every batch was consumed (filled in as the generator runs). */
  units(): number;
}

export function timeTravelWorld(total: number, batchSize = 10_000): TimeTravelWorld {
  let clock = Date.now() - 86_400_000;
  let units = 0;
  const meta = () => ({ actor: null, timestamp: new Date((clock += 50)).toISOString(), schemaVersion: CURRENT_SCHEMA_VERSION });
  const action = (key: string) => ({ id: newId(), key, name: key, description: '' });
  const roleIds = new Map<string, string>();
  const role = (resource: string, key: string, permissions: string[]): EnvEvent => {
    const id = newId();
    roleIds.set(`${resource}#${key}`, id);
    return { type: 'RoleCreated', data: { id, key, resource, name: key, description: '', permissions, attributes: {} } };
  };
  const resource = (key: string): EnvEvent => ({
    type: 'ResourceCreated',
    data: { id: newId(), key, name: key, description: '', actions: [action('read'), action('write')], attributes: {} },
  });
  const relation = (objectResource: string, key: string, subjectResource: string): EnvEvent => ({
    type: 'RelationCreated',
    data: { id: newId(), key, name: key, description: '', objectResource, subjectResource },
  });
  const rule = (resource: string, key: string, onResource: string, source: string, relation: string): EnvEvent => ({
    type: 'ImplicitGrantAdded',
    data: { id: roleIds.get(`${resource}#${key}`)!, key, resource, rule: { onResource, role: source, relation } },
  });
  const instance = (resource: string, key: string, tenant: string): EnvEvent => ({
    type: 'ResourceInstanceCreated',
    data: { id: newId(), key, resource, tenant, attributes: {} },
  });
  const tuple = (id: string, subject: string, relation: string, object: string, tenant: string, deleted = false): EnvEvent => ({
    type: deleted ? 'RelationshipTupleDeleted' : 'RelationshipTupleCreated',
    data: { id, subject, relation, object, tenant },
  });
  const assignment = (id: string, user: string, role: string, resource: string, tenant: string, on: string, removed = false): EnvEvent => ({
    type: removed ? 'RoleUnassigned' : 'RoleAssigned',
    data: { id, user, role, resource, tenant, resourceInstance: on },
  });

  function* events(): Generator<EnvEvent> {
    yield resource('account');
    yield resource('folder');
    yield resource('document');
    yield role('account', 'admin', ['read', 'write']);
    yield role('folder', 'editor', ['read', 'write']);
    yield role('document', 'editor', ['read', 'write']);
    yield relation('folder', 'account', 'account');
    yield relation('document', 'parent', 'folder');
    yield rule('folder', 'editor', 'account', 'admin', 'account');
    yield rule('document', 'editor', 'folder', 'editor', 'parent');
    for (let t = 0; t < TENANTS; t++) {
      yield { type: 'TenantCreated', data: { id: newId(), key: `t${t}`, name: `t${t}`, description: '', attributes: {} } };
      yield instance('account', `a${t}`, `t${t}`);
      yield assignment(newId(), `adm${t}`, 'admin', 'account', `t${t}`, `account:a${t}`);
    }
    const assignments = new Map<number, string>();
    const parents = new Map<number, string>();
    let watched = '';
    let watchedPresent = false;
    for (let i = 0; ; i++) {
      units = i + 1;
      const t = `t${i % TENANTS}`;
      const accountTuple = newId();
      if (i === WATCHED) [watched, watchedPresent] = [accountTuple, true];
      yield instance('folder', `f${i}`, t);
      yield tuple(accountTuple, `account:a${i % TENANTS}`, 'account', `folder:f${i}`, t);
      yield instance('document', `d${i}`, t);
      parents.set(i, newId());
      yield tuple(parents.get(i)!, `folder:f${i}`, 'parent', `document:d${i}`, t);
      yield { type: 'UserCreated', data: { id: newId(), key: `u${i}`, email: null, firstName: null, lastName: null, attributes: {} } };
      assignments.set(i, newId());
      yield assignment(assignments.get(i)!, `u${i}`, 'editor', 'folder', t, `folder:f${i}`);
      const old = i - 4;
      const oldTenant = `t${old % TENANTS}`;
      if (old >= 0 && old % 4 === 0)
        yield assignment(assignments.get(old)!, `u${old}`, 'editor', 'folder', oldTenant, `folder:f${old}`, true);
      if (old >= 0 && old % 4 === 2) {
        yield tuple(parents.get(old)!, `folder:f${old}`, 'parent', `document:d${old}`, oldTenant, true);
        parents.set(old, newId());
        yield tuple(parents.get(old)!, `folder:f${old}`, 'parent', `document:d${old}`, oldTenant);
      }
      assignments.delete(old);
      parents.delete(old);
      if (i > WATCHED && i % WATCH_EVERY === 0) {
        const tw = `t${WATCHED % TENANTS}`;
        if (!watchedPresent) watched = newId();
        yield tuple(watched, `account:a${WATCHED % TENANTS}`, 'account', `folder:f${WATCHED}`, tw, watchedPresent);
        watchedPresent = !watchedPresent;
      }
    }
  }

  function* batches(): Generator<NewEvent[]> {
    let batch: NewEvent[] = [];
    let emitted = 0;
    for (const event of events()) {
      if (emitted === total) break;
      batch.push({ type: event.type, data: event.data, metadata: meta() });
      emitted++;
      if (batch.length === batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  return { batches: batches(), units: () => units };
}

/**
 * What `u<i>` may do on `d<i>` once unit i + 4 is written (churn done): write,
 * unless its assignment was taken away (i ≡ 0 mod 4). The tuple deleted and
 * created again (i ≡ 2 mod 4) is back by then.
 */
export const unitAllowed = (i: number): boolean => i % 4 !== 0;
