/**
 * Writes the upgrade test's fixture (test/upgrade/fixtures/previous-release): run with the release
 * whose data directory the test opens, from a checkout of it with this file and
 * support/previous-release-world.ts copied in:
 *
 *   node -r @swc-node/register test/upgrade/make-fixture.ts <fixture dir>
 *
 * It writes the world into `<fixture dir>/data` (a fixed admin key) and the answers that release
 * gives, now and as of each moment, into `<fixture dir>/answers.json`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startTestServer } from '../support/embedded-server';
import { answers, FIXTURE_ADMIN_KEY, writeWorld } from './support/previous-release-world';

async function main(): Promise<void> {
  const dir = resolve(process.argv[2] ?? 'test/upgrade/fixtures/previous-release');
  const data = join(dir, 'data');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(data, { recursive: true });
  const server = await startTestServer({ dataDir: data, env: { ADMIN_API_KEY: FIXTURE_ADMIN_KEY } });
  const moments = await writeWorld(server);
  const recorded = { moments, now: await answers(server.api), asOf: {} as Record<number, unknown> };
  for (const moment of moments) recorded.asOf[moment] = await answers(server.api, moment);
  await server.close({ keepData: true });
  writeFileSync(join(dir, 'answers.json'), `${JSON.stringify(recorded, null, 1)}\n`);
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
