import { parseOptions, PEERS } from './options';

describe('bench options: the peers', () => {
  it('runs every peer unless told otherwise', () => {
    expect(parseOptions(['--quick', '--only=peer']).peers).toEqual([...PEERS]);
    expect(PEERS).toEqual(['spicedb-memory', 'spicedb-postgres', 'openfga-postgres']);
  });

  it('runs the peers named by --peers, in that order', () => {
    expect(parseOptions(['--peers=openfga-postgres,spicedb-memory']).peers).toEqual(['openfga-postgres', 'spicedb-memory']);
  });

  it('refuses an unknown peer, and the old --peer-datastore (the memory-datastore OpenFGA row is gone)', () => {
    expect(() => parseOptions(['--peers=openfga-memory'])).toThrow(/unknown peer openfga-memory/);
    expect(() => parseOptions(['--peer-datastore=sqlite'])).toThrow(/--peer-datastore is gone/);
  });
});

describe('bench options: the distributed deployments and unknown flags', () => {
  it('starts all three distributed deployments unless told otherwise, in their own order', () => {
    expect(parseOptions(['--only=distributed']).distributedReadModels).toEqual(['mongodb', 'postgres', 'sqlite']);
    expect(parseOptions(['--dist-read-models=sqlite,postgres']).distributedReadModels).toEqual(['postgres', 'sqlite']);
  });

  it('refuses unknown read models and unknown flags rather than running without them', () => {
    expect(() => parseOptions(['--dist-read-models=ferretdb'])).toThrow(/unknown read models ferretdb/);
    expect(() => parseOptions(['--dist-copy-event=1000'])).toThrow(/unknown argument --dist-copy-event=1000/);
  });
});
