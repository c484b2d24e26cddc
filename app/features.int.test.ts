import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '../shared/docstore/sqlite-document-store';
import { ReadModels } from '../shared/read-models/read-models';
import {
  checkWorkerFeatureNames,
  featureNames,
  featureRegistry,
  hasRegisteredProjections,
  registeredProjections,
} from './feature-registry';
import { checkWorkerFeatures, embeddedFeatures } from './features';

const projectionNames = (projections: { name: string }[] | undefined) => (projections ?? []).map((p) => p.name);

describe('the feature registry', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'feature-registry-'));
    store = new SqliteDocumentStore(join(dir, 'read-models.sqlite'));
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const readModels = () => ReadModels.writer(store);

  it('is what the embedded service runs: each registered feature, in its order, under its name', () => {
    expect(embeddedFeatures().map((f) => f.name)).toEqual(featureNames);
    expect(featureNames).toEqual(Object.keys(featureRegistry));
  });

  it("names each feature's projections: the feature builds those the projection thread builds by name", () => {
    for (const feature of embeddedFeatures()) {
      const name = feature.name as (typeof featureNames)[number];
      expect([name, projectionNames(feature.projections?.(readModels()))]).toEqual([
        name,
        projectionNames(registeredProjections(name, readModels())),
      ]);
      expect([name, hasRegisteredProjections(name)]).toEqual([name, feature.projections !== undefined]);
    }
    expect(featureNames.filter(hasRegisteredProjections)).toEqual(['environment-copy', 'derived-grants', 'time-travel', 'audit-log']);
  });

  it('gives the check workers the features marked as theirs', () => {
    expect(checkWorkerFeatureNames).toEqual(['derived-grants']);
    expect(checkWorkerFeatures().map((f) => f.name)).toEqual(['derived-grants']);
  });

  it('knows no feature by a name it does not register', () => {
    expect(hasRegisteredProjections('a-test-feature')).toBe(false);
    expect(hasRegisteredProjections('bulk-facts')).toBe(false);
  });
});
