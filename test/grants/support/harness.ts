import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { coreProjections } from '../../../app/feature';
import { tupleEdges } from '../../../shared/read-models/grants/fact-finders';
import { readStoresOf } from '../../../shared/read-stores/port';
import type { GrantStore } from '../../../shared/read-stores/grants/port';
import { EffectiveGrants } from '../../../command-service/grant-queries/effective-grants';
import type { GrantDoc } from '../../../shared/read-models/grants/model';
import { grantsProjection } from '../../../projection-service/grants/projection';
import { GrantQueries } from '../../../command-service/grant-queries/grant-queries';
import { GrantStats } from '../../../projection-service/grants/stats';
import { ReadModels } from '../../../shared/read-models/read-models';
import type { Projection } from '../../../shared/read-models/projection';
import { ProjectionRunner } from '../../../projection-service/runner';
import { CommandPipeline } from '../../../shared/cqrs/command-pipeline';
import type { DocumentStore } from '../../../shared/docstore/port';
import { SqliteDocumentStore } from '../../../shared/docstore/sqlite-document-store';
import type { EnvCommand } from '../../../shared/domain/env/commands';
import { envDecider } from '../../../shared/domain/env/decider';
import type { EnvState } from '../../../shared/domain/env/state';
import { DomainError } from '../../../shared/errors';
import type { EnvEvent } from '../../../shared/events';
import { CURRENT_SCHEMA_VERSION, streams } from '../../../shared/events';
import { SqliteEventStore } from '../../../shared/eventstore/sqlite-event-store';
import { newId } from '../../../shared/ids';

export const ENV = 'env-under-test';
const logger = pino({ level: 'silent' });

/** A read-model side (document store + projections + runner) over an event store. */
export class ReadSide {
  readonly rm: ReadModels;
  readonly store: DocumentStore;
  /** The grants' store, committed state (the projection writes through the writer view's). */
  readonly grants: GrantStore;
  readonly queries: GrantQueries;
  readonly stats = new GrantStats();
  readonly runner: ProjectionRunner;

  /** `extra`: projections run after the grants projection (e.g. the history's). */
  constructor(store: DocumentStore, events: SqliteEventStore, extra: (rm: ReadModels) => Projection[] = () => []) {
    this.store = store;
    this.rm = new ReadModels(store);
    this.grants = readStoresOf(store).grants;
    this.queries = GrantQueries.overStored(this.rm, this.grants);
    // The projections read and write through the store's writer view, as in the service.
    const projected = ReadModels.writer(store);
    this.runner = new ProjectionRunner(
      events,
      store,
      [...coreProjections(projected), grantsProjection(projected, { stats: this.stats }), ...extra(projected)],
      logger,
      {
        checkpointName: 'grants-test',
      },
    );
  }

  /** Every grant of the environment, stored or implied (EffectiveGrants), sorted by id. */
  async allGrants(): Promise<GrantDoc[]> {
    return await new EffectiveGrants(this.grants, tupleEdges(this.rm.tuples)).find({ environment_id: ENV }, { sortBy: 'id' });
  }

  /** Every grant row the projection stored, sorted by id. */
  async storedGrants(): Promise<GrantDoc[]> {
    return await this.grants.ofEnvironment(ENV);
  }
}

/**
 * The real write path (decider + command pipeline + SQLite event log) and read
 * path (projection runner, core projections, grants projection) without HTTP,
 * on a temporary directory.
 */
export class GrantsHarness {
  readonly dir = mkdtempSync(join(tmpdir(), 'grants-'));
  readonly events = new SqliteEventStore({ path: join(this.dir, 'events.sqlite') });
  readonly pipeline = new CommandPipeline(this.events, envDecider, logger);
  readonly read: ReadSide;
  private clock = Date.parse('2026-01-01T00:00:00Z');
  private position = 0;
  private readonly extra: ReadSide[] = [];

  /**
   * `readModels`: the document store of the read side (default: SQLite in the temporary directory);
   * `extra`: projections the read side runs after the grants projection.
   */
  constructor(readModels?: DocumentStore, extra?: (rm: ReadModels) => Projection[]) {
    this.read = new ReadSide(readModels ?? new SqliteDocumentStore(join(this.dir, 'rm.sqlite')), this.events, extra);
  }

  async start(): Promise<this> {
    await this.read.runner.start();
    return this;
  }

  /** Runs a command; a refusal (domain error) is returned, not thrown. */
  async exec(command: EnvCommand): Promise<{ ok: true; events: EnvEvent[] } | { ok: false; error: DomainError }> {
    try {
      this.clock += 1000;
      const outcome = await this.pipeline.execute(streams.environment(ENV), command, {
        actor: null,
        timestamp: new Date(this.clock).toISOString(),
        schemaVersion: CURRENT_SCHEMA_VERSION,
      });
      this.position = Math.max(this.position, outcome.position);
      return { ok: true, events: outcome.events };
    } catch (error) {
      if (error instanceof DomainError) return { ok: false, error };
      throw error;
    }
  }

  /** Runs a command that must succeed. */
  async must(command: EnvCommand): Promise<EnvEvent[]> {
    const result = await this.exec(command);
    if (!result.ok) throw new Error(`${command.type} refused: ${result.error.message}`);
    return result.events;
  }

  /** Waits until the read models reflect every command run so far. */
  async settle(side: ReadSide = this.read): Promise<void> {
    if (!(await side.runner.waitForPosition(this.position, 20_000))) throw new Error(`read models did not reach ${this.position}`);
  }

  async state(): Promise<EnvState> {
    return this.pipeline.currentState(streams.environment(ENV));
  }

  /** A second read side built from scratch from the same log (the rebuild). */
  async rebuild(): Promise<ReadSide> {
    const side = new ReadSide(new SqliteDocumentStore(join(this.dir, `rebuild-${this.extra.length}.sqlite`)), this.events);
    this.extra.push(side);
    await side.runner.start();
    await this.settle(side);
    return side;
  }

  async close(): Promise<void> {
    for (const side of [this.read, ...this.extra]) {
      await side.runner.stop();
      await side.store.close();
    }
    await this.events.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Commands to build schemas tersely. */
export const cmd = {
  resource: (key: string, actions: string[]): EnvCommand => ({
    type: 'CreateResource',
    id: newId(),
    key,
    name: key,
    description: '',
    urn: null,
    attributes: [],
    actions: actions.map((a) => ({ id: newId(), key: a, name: a, description: '' })),
  }),
  role: (resource: string | null, key: string, permissions: string[]): EnvCommand => ({
    type: 'CreateRole',
    id: newId(),
    resource,
    key,
    name: key,
    description: '',
    permissions,
    attributes: {},
  }),
  relation: (objectResource: string, key: string, subjectResource: string): EnvCommand => ({
    type: 'CreateRelation',
    id: newId(),
    objectResource,
    key,
    name: key,
    description: '',
    subjectResource,
  }),
  tenant: (key: string): EnvCommand => ({ type: 'CreateTenant', id: newId(), key, name: key, description: '', attributes: {} }),
  instance: (resource: string, key: string, tenant: string): EnvCommand => ({
    type: 'CreateInstance',
    id: newId(),
    key,
    resource,
    tenant,
    attributes: {},
  }),
  assign: (user: string, role: string, resourceInstance: string | null, tenant: string | null = null): EnvCommand => ({
    type: 'AssignRole',
    id: newId(),
    newUserId: newId(),
    user,
    role,
    tenant,
    resourceInstance,
  }),
  unassign: (user: string, role: string, resourceInstance: string | null, tenant: string | null = null): EnvCommand => ({
    type: 'UnassignRole',
    user,
    role,
    tenant,
    resourceInstance,
  }),
  tuple: (subject: string, relation: string, object: string): EnvCommand => ({
    type: 'CreateTuple',
    id: newId(),
    subject,
    relation,
    object,
    tenant: null,
  }),
  untuple: (subject: string, relation: string, object: string): EnvCommand => ({ type: 'DeleteTuple', subject, relation, object }),
  derive: (resource: string, role: string, onResource: string, sourceRole: string, relation: string): EnvCommand => ({
    type: 'AddImplicitGrant',
    resource,
    role,
    rule: { onResource, role: sourceRole, relation },
  }),
  underive: (resource: string, role: string, onResource: string, sourceRole: string, relation: string): EnvCommand => ({
    type: 'RemoveImplicitGrant',
    resource,
    role,
    rule: { onResource, role: sourceRole, relation },
  }),
};
