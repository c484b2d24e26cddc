import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startChildServer, type ChildServer } from '../support/child-server';
import { ApiClient, FACTS, loadFolderFileExample } from '../support/embedded-server';

/**
 * The console's Decisions page (docs/decision-logs.md) in Debian's chromium against the built
 * service: the decision log listed newest first, "denied" one click away, the filters, and each
 * check opening in Check with its question filled in, as of the position it was decided at (where
 * it answers as it did then, though the facts changed since). `npm run build` first.
 *
 * CONSOLE_SCREENSHOTS=<dir> saves a screenshot of the page there.
 */
const ROOT = join(__dirname, '..', '..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = process.env.CONSOLE_SCREENSHOTS;

jest.setTimeout(120_000);

describe('the Decisions page in chromium', () => {
  let server: ChildServer;
  let dataDir: string;
  let profile: string;
  let env: ApiClient;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  let alicePosition = 0;

  const rows = () => page.locator('[data-testid=decisions] tbody tr');
  const open = (hash: string) => page.evaluate(`location.hash = ${JSON.stringify(hash)}`);

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist', 'ui', 'index.html')) || !existsSync(join(ROOT, 'dist', 'main.js')))
      throw new Error('the service is not built: run npm run build (npm run test:browser does)');
    if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does)`);
    dataDir = mkdtempSync(join(tmpdir(), 'rebac-console-'));
    profile = mkdtempSync(join(tmpdir(), 'rebac-chromium-'));
    server = await startChildServer({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, 'dist/main.js');
    const admin = new ApiClient(server.url, readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim());
    await loadFolderFileExample(admin);
    env = await admin.environmentClient();
    // alice may write the file through her folder role; bob may not; then alice loses her role.
    const allowed = await env.post('/allowed', { user: 'alice', action: 'write', resource: 'file:readme' });
    expect(allowed.body).toEqual({ allow: true });
    alicePosition = Number(allowed.headers.get('x-event-position'));
    expect(
      (await env.post('/allowed', { user: 'bob', action: 'read', resource: { type: 'file', key: 'readme', tenant: 'acme' } })).body,
    ).toEqual({
      allow: false,
    });
    expect((await env.post('/allowed', { user: 'carol', action: 'share', resource: 'folder:docs' })).body).toEqual({ allow: false });
    expect(
      (await admin.delete(`${FACTS}/role_assignments`, { user: 'alice', role: 'editor', resource_instance: 'folder:docs' })).status,
    ).toBe(204);
    expect((await env.post('/allowed', { user: 'alice', action: 'write', resource: 'file:readme' })).body).toEqual({ allow: false });

    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 860 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    await context?.close();
    await server?.stop();
    for (const dir of [dataDir, profile]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });

  it('lists every decision newest first, from the nav', async () => {
    await page.goto(`${server.url}/ui/`);
    await page.fill('input[name=api-key]', env.key);
    await page.click('button[type=submit]');
    await page.click('header nav a:has-text("Decisions")');
    await rows().nth(3).waitFor();
    expect(await rows().count()).toBe(4);
    expect(await rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-decision')))).toEqual([
      'false',
      'false',
      'false',
      'true',
    ]);
    expect(await rows().nth(3).innerText()).toContain('file:readme');
    expect(await page.getByTestId('pager-status').innerText()).toContain('of 4');
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: join(SHOTS, 'decisions.png') });
    }
  });

  it('shows the denied ones in one click, and filters by user and resource', async () => {
    await page.click('nav.tabs a:has-text("denied")');
    await page.waitForFunction("location.hash.includes('decision=false')");
    await page.locator('[data-testid=decisions] tbody tr[data-decision=true]').waitFor({ state: 'detached' });
    expect(await rows().count()).toBe(3);
    await page.fill('input[name=users]', 'bob');
    await page.click('button:has-text("Filter")');
    await page.waitForFunction("location.hash.includes('users=bob')");
    await page.locator('[data-testid=decisions] tbody tr').nth(1).waitFor({ state: 'detached' });
    expect(await rows().count()).toBe(1);
    expect(await rows().first().innerText()).toContain('acme');
    await open('#/decisions?resources=folder');
    await page.locator('[data-testid=decisions] tbody tr', { hasText: 'carol' }).waitFor();
    expect(await rows().count()).toBe(1);
    await open('#/decisions?users=nobody');
    await page.getByText('No decision matches.').waitFor();
  });

  it('opens a decision in Check with its question, as of its position: the answer then, not now', async () => {
    await open('#/decisions?decision=true');
    const allowed = rows().first();
    await allowed.waitFor();
    await allowed.locator(`a:has-text("${alicePosition}")`).click();
    await page.waitForFunction("location.hash.startsWith('#/check')");
    expect(await page.locator('input[name=user]').inputValue()).toBe('alice');
    expect(await page.locator('input[name=action]').inputValue()).toBe('write');
    expect(await page.locator('input[name=resource]').inputValue()).toBe('file:readme');
    const result = page.getByTestId('check-result');
    await result.waitFor();
    expect(await result.innerText()).toContain(`As of position ${alicePosition}`);
    expect(await result.innerText()).toMatch(/ALLOW/i);
  });
});
