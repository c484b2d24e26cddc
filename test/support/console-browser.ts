import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startChildServer, type ChildServer } from './child-server';
import { ApiClient, FACTS, SCHEMA, type ApiResponse } from './embedded-server';

const ROOT = join(__dirname, '..', '..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = process.env.CONSOLE_SCREENSHOTS;
const UI_TIMEOUT = 15_000;

/** The built service on a fresh data directory, and a headless chromium on its console. */
export interface ConsoleBrowser {
  server: ChildServer;
  dataDir: string;
  admin: ApiClient;
  page: Page;
  /** Every uncaught error the page threw, in order. */
  pageErrors: string[];
  /** Opens a console route (`#/check?...`) in the page. */
  open(hash: string): Promise<void>;
  /** Saves a screenshot as `<name>.png` when CONSOLE_SCREENSHOTS names a directory. */
  shot(name: string): Promise<void>;
  /** Signs in with the organisation key. */
  signIn(): Promise<void>;
  /** Signs in and waits for the page it opens on, the Model's graph (so the example loaded before is drawn). */
  signInToModel(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts `node dist/main.js` (as `npm start` runs it; `npm run build` first), with `env` added to
 * its environment, and Debian's chromium through playwright-core, with a profile of its own.
 */
export async function startConsoleBrowser(options: { env?: Record<string, string> } = {}): Promise<ConsoleBrowser> {
  if (!existsSync(join(ROOT, 'dist', 'ui', 'index.html')) || !existsSync(join(ROOT, 'dist', 'main.js')))
    throw new Error('the service is not built: run npm run build (npm run test:browser does)');
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does)`);
  const dataDir = mkdtempSync(join(tmpdir(), 'rebac-console-'));
  const profile = mkdtempSync(join(tmpdir(), 'rebac-chromium-'));
  const server = await startChildServer({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...options.env }, 'dist/main.js');
  const admin = new ApiClient(server.url, readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim());
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(UI_TIMEOUT);
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('dialog', (dialog) => void dialog.accept());
  const signIn = async () => {
    await page.goto(`${server.url}/ui/`);
    await page.fill('input[name=api-key]', admin.key);
    await page.click('button[type=submit]');
  };
  return {
    server,
    dataDir,
    admin,
    page,
    pageErrors,
    // Evaluated in the page (test files are compiled without the DOM's types).
    open: async (hash) => void (await page.evaluate(`location.hash = ${JSON.stringify(hash)}`)),
    async shot(name) {
      if (!SHOTS) return;
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
    },
    signIn,
    async signInToModel() {
      await signIn();
      await page.locator('[data-testid=model-graph]').waitFor();
    },
    async close() {
      await context.close();
      await server.stop();
      for (const dir of [dataDir, profile]) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The response, when the API answered 200; a seed step that fails says what the API answered. */
export async function ok<T = any>(response: Promise<ApiResponse<T>>): Promise<ApiResponse<T>> {
  const r = await response;
  if (r.status !== 200) throw new Error(`expected 200, got ${r.status}: ${JSON.stringify(r.body)}`);
  return r;
}

/** The body of a 200 answer. */
export const okBody = async <T = any>(response: Promise<ApiResponse<T>>): Promise<T> => (await ok(response)).body;

/**
 * An attribute rule on the folder/file example: legal may read every file
 * (user set `legal`: `user.department` equals legal; resource set `all-files`:
 * every file; the set rule between them).
 */
export async function seedLegalReadsFiles(admin: ApiClient): Promise<void> {
  await ok(
    admin.post(`${SCHEMA}/condition_sets`, {
      key: 'legal',
      name: 'Legal',
      conditions: { allOf: [{ 'user.department': { equals: 'legal' } }] },
    }),
  );
  await ok(
    admin.post(`${SCHEMA}/condition_sets`, {
      key: 'all-files',
      name: 'All files',
      type: 'resourceset',
      resource_id: 'file',
      conditions: {},
    }),
  );
  await ok(admin.post(`${FACTS}/set_rules`, { user_set: 'legal', permission: 'file:read', resource_set: 'all-files' }));
}
