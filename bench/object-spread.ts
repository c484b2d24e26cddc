/**
 * What an object spread given new keys costs on this Node, against
 * `withFields` (Object.assign; shared/objects.ts), for the shapes the
 * projections make once per event: a document's created fields from its
 * environment context, and a history version of a document read back from
 * SQLite. Also the spread that only overrides keys, which is fast. Prints ns
 * per object and the ratio; when a Node release makes the spread as fast, the
 * helper can go.
 *
 *   node -r @swc-node/register bench/object-spread.ts
 */
import { withFields } from '../shared/objects';

const N = 1_000_000;
const ctx = { organization_id: 'o'.repeat(36), project_id: 'p'.repeat(36), environment_id: 'e'.repeat(36) };
const stored = Array.from(
  { length: 1000 },
  (_, i) =>
    JSON.parse(
      JSON.stringify({
        id: `doc-${i}`,
        key: `k${i}`,
        resource: 'document',
        tenant: 't',
        attributes: {},
        ...ctx,
        created_at: 'c',
        updated_at: 'u',
      }),
    ) as { id: string; updated_at: string },
);

const cases: Record<string, (i: number) => object> = {
  'created fields, spread + 2 new keys': () => ({ ...ctx, created_at: 'now', updated_at: 'now' }),
  'created fields, withFields': () => withFields(ctx, { created_at: 'now', updated_at: 'now' }),
  'version, spread + 3 new keys': (i) => ({ ...stored[i % 1000]!, id: 'v', _oid: 'doc', _from: i, _to: 0 }),
  'version, withFields': (i) => withFields(stored[i % 1000]!, { id: 'v', _oid: 'doc', _from: i, _to: 0 }),
  'update, spread overriding a key': (i) => ({ ...stored[i % 1000]!, updated_at: 'now' }),
};

let sink = 0;
const nsPer = (make: (i: number) => object) => {
  const started = process.hrtime.bigint();
  for (let i = 0; i < N; i++) sink += make(i) === null ? 0 : 1;
  return Number(process.hrtime.bigint() - started) / N;
};
for (const make of Object.values(cases)) nsPer(make); // warm up
const best = new Map<string, number>();
for (let round = 0; round < 3; round++)
  for (const [name, make] of Object.entries(cases)) best.set(name, Math.min(best.get(name) ?? Infinity, nsPer(make)));
console.log(`node ${process.version}, ${N.toLocaleString('en-US')} objects per case, best of 3 rounds`);
for (const [name, ns] of best) console.log(`${name.padEnd(40)} ${ns.toFixed(0).padStart(6)} ns`);
const ratio = (a: string, b: string) => (best.get(a)! / best.get(b)!).toFixed(1);
console.log(
  `spread ÷ withFields: created fields ${ratio('created fields, spread + 2 new keys', 'created fields, withFields')}×, version ${ratio('version, spread + 3 new keys', 'version, withFields')}×`,
);
if (sink === 0) console.log('(nothing made)');
