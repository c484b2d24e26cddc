import { ReadModels } from '../../shared/read-models/read-models';
import { FACTS, SCHEMA, loadFolderFileExample, startTestServer, type TestServer } from '../support/embedded-server';

/** Every read-model collection's documents, sorted, for comparison. */
async function snapshot(rm: ReadModels) {
  const collections = [
    rm.organizations,
    rm.projects,
    rm.environments,
    rm.apiKeys,
    rm.resources,
    rm.resourceRoles,
    rm.roles,
    rm.relations,
    rm.tenants,
    rm.users,
    rm.instances,
    rm.assignments,
    rm.tuples,
  ];
  const all = await Promise.all(collections.map((c) => c.find({})));
  return all.map((docs) => [...docs].sort((a, b) => a.id.localeCompare(b.id)));
}

describe('projections are idempotent and rebuildable', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    const api = await server.api.environmentClient();
    await loadFolderFileExample(api);
    await api.post(`${FACTS}/resource_instances`, { key: 'spare', resource: 'file', tenant: 'acme' });
    await api.delete(`${FACTS}/resource_instances/file:spare`);
    await api.patch(`${SCHEMA}/resources/folder/roles/viewer`, { name: 'Reader', permissions: ['read', 'share'] });
  });
  afterAll(() => server.close());

  it('dropping the read models and replaying the log gives the same documents', async () => {
    const { documentStore, eventStore, services, runner } = server.service;
    const before = await snapshot(services.readModels);
    await runner.stop();
    await documentStore.dropAll();
    expect(await services.readModels.resources.count({})).toBe(0);
    const { ProjectionRunner } = await import('../../projection-service/runner');
    const { coreProjections } = await import('../../app/feature');
    const { default: pino } = await import('pino');
    const projected = ReadModels.writer(documentStore);
    const rebuild = new ProjectionRunner(eventStore, documentStore, coreProjections(projected), pino({ level: 'silent' }), {
      checkpointName: 'rebuild',
    });
    await rebuild.start();
    expect(await rebuild.waitForPosition(await eventStore.headPosition(), 10_000)).toBe(true);
    await rebuild.stop();
    expect(await snapshot(services.readModels)).toEqual(before);
  });

  it('applying every event a second time changes nothing', async () => {
    const { eventStore, services } = server.service;
    const before = await snapshot(services.readModels);
    const projections = (await import('../../app/feature')).coreProjections(services.readModels);
    const { applyToProjections } = await import('../../shared/read-models/projection');
    const events = await eventStore.readAll(0, 100_000);
    for (const event of events) await applyToProjections(projections, event);
    expect(await snapshot(services.readModels)).toEqual(before);
  });
});
