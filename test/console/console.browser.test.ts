import type { Page } from 'playwright-core';
import { startConsoleBrowser, type ConsoleBrowser } from '../support/console-browser';
import { FACTS, loadFolderFileExample, type ApiClient } from '../support/embedded-server';

/**
 * The web console in a real browser (Debian's chromium, through playwright-core)
 * against the built service (`node dist/main.js`, as `npm start` runs it):
 * `npm run test:browser` builds first. Each step is one test and builds on the
 * previous ones.
 *
 * Steps 6 to 8 read the audit log (`GET /v2/events/...` and its stream) and
 * time travel (`as_of`, `POST /allowed/history`).
 *
 * CONSOLE_SCREENSHOTS=<dir> saves a screenshot of each page there (docs/console/ holds the committed ones).
 * CONSOLE_BROWSER_INSTANCES (default 100000) instances are loaded for the paging step.
 */
const INSTANCES = Number(process.env.CONSOLE_BROWSER_INSTANCES ?? 100_000);

jest.setTimeout(120_000);

describe('the web console in chromium', () => {
  let browser: ConsoleBrowser;
  let admin: ApiClient;
  let page: Page;
  const shot = (name: string) => browser.shot(name);
  const open = (hash: string) => browser.open(hash);

  beforeAll(async () => {
    browser = await startConsoleBrowser();
    ({ admin, page } = browser);
  });

  afterAll(async () => {
    await browser?.close();
  });

  afterEach(() => {
    expect(browser.pageErrors).toEqual([]);
  });

  it('1. signs in with the organisation key, and keeps it in sessionStorage only', async () => {
    await browser.signIn();
    await page.getByText('This environment has no resource types yet.').waitFor();
    expect(await page.locator('select[aria-label=environment]').inputValue()).not.toBe('');
    const stored = await page.evaluate(
      '({ session: sessionStorage.length, local: Object.keys(localStorage), last: localStorage.getItem("rebac-console.last-environment"), cookie: document.cookie })',
    );
    // localStorage holds only where the console looked last (ids), never the key.
    expect(stored).toEqual({ session: 1, local: ['rebac-console.last-environment'], last: expect.any(String), cookie: '' });
    expect((stored as { last: string }).last).not.toContain(browser.admin.key);
    expect(JSON.parse((stored as { last: string }).last)).toEqual({ project: expect.any(String), env: expect.any(String) });
  });

  it("2-3. the seed's folder/file example, built through the API, is drawn as the model graph", async () => {
    await loadFolderFileExample(admin);
    await page.click('text=reload');
    const graph = page.locator('[data-testid=model-graph]');
    await graph.locator('g.type-box[data-type=folder]').waitFor();
    await graph.locator('g.type-box[data-type=file]').waitFor();
    expect(await graph.locator('g.relation-edge[data-relation=parent]').count()).toBe(1);
    // "a folder's editor is its files' editor", and the viewer's implicit grant
    expect(await graph.locator('g.derivation-edge[data-derivation="folder#editor>file#editor"]').count()).toBe(1);
    expect(await graph.locator('g.derivation-edge[data-derivation="folder#viewer>file#viewer"]').count()).toBe(1);
    expect(await graph.locator('g.role-row').count()).toBe(4);
    await shot('model');
  });

  it('4. lists the facts with the API filters', async () => {
    await open('#/facts?kind=instances');
    await page.locator('[data-testid=facts-instances] tbody tr', { hasText: 'file:readme' }).waitFor();
    expect(await page.locator('[data-testid=facts-instances] tbody tr').count()).toBe(2);
    await open('#/facts?kind=tuples');
    await page.fill('input[name=subject]', 'folder:docs');
    await page.click('button:has-text("Search")');
    await page.locator('[data-testid=facts-tuples] tbody tr', { hasText: 'file:readme' }).waitFor();
    await open('#/facts?kind=assignments');
    await page.locator('[data-testid=facts-assignments] tbody tr', { hasText: 'alice' }).waitFor();
    await shot('facts');
  });

  it('5. runs a check and draws its chain: assignment, tuple, rule', async () => {
    await open('#/check');
    // Signed in with an organisation key: checks need an environment key, made here at the read level.
    await page.click('button[name=create-check-key]');
    await page.fill('input[name=user]', 'alice');
    await page.fill('input[name=action]', 'write');
    await page.fill('input[name=resource]', 'file:readme');
    await page.click('button:has-text("Check")');
    const result = page.locator('[data-testid=check-result]');
    await result.locator('.verdict.allow').waitFor();
    const chain = result.locator('[data-testid=chain]');
    await expect(chain.textContent()).resolves.toContain('role assignment');
    await expect(chain.textContent()).resolves.toContain('tuple folder:docs —parent→ file:readme');
    await expect(chain.textContent()).resolves.toContain('rule: folder#editor ⇒ file#editor via parent');
    await shot('check');
  });

  let deletedAt = 0;

  it('6. [audit log] the timeline shows the change live when a tuple is deleted', async () => {
    await open('#/timeline');
    await page.locator('[data-testid=timeline] tbody tr[data-type=RelationshipTupleCreated]').waitFor();
    await page.locator('[data-testid=stream-status]', { hasText: 'live' }).waitFor();
    const env = await admin.environmentClient();
    const deleted = await env.delete(`${FACTS}/relationship_tuples`, { subject: 'folder:docs', relation: 'parent', object: 'file:readme' });
    expect(deleted.status).toBe(204);
    deletedAt = Number(deleted.headers.get('x-event-position'));
    const row = page.locator('[data-testid=timeline] tbody tr.fresh[data-type=RelationshipTupleDeleted]');
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain(String(deletedAt));
    await shot('timeline');
  });

  it('7. [time travel] the decision history shows the loss, and follows a new change live', async () => {
    await open('#/check');
    await page.fill('input[name=user]', 'alice');
    await page.fill('input[name=action]', 'write');
    await page.fill('input[name=resource]', 'file:readme');
    await page.click('button:has-text("Decision history")');
    const history = page.locator('[data-testid=decision-history]');
    await history
      .locator(`[data-testid=history-change][data-allow=false][data-position="${deletedAt}"]`, { hasText: 'RelationshipTupleDeleted' })
      .waitFor();
    await history.getByText('live (live)').waitFor();
    const env = await admin.environmentClient();
    const created = await env.post(`${FACTS}/relationship_tuples`, { subject: 'folder:docs', relation: 'parent', object: 'file:readme' });
    expect(created.status).toBe(200);
    const createdAt = Number(created.headers.get('x-event-position'));
    await history
      .locator(`[data-testid=history-change][data-allow=true][data-position="${createdAt}"]`, { hasText: 'RelationshipTupleCreated' })
      .waitFor();
    // Allowed by the seed's tuple, denied by its deletion, allowed again by the new tuple.
    expect(await history.locator('[data-testid=history-change]').count()).toBe(3);
    await shot('history');
  });

  it('8. [time travel] checks as of a past position chosen on the timeline of positions', async () => {
    await page.click('button:has-text("Check")');
    await page.locator('[data-testid=check-result] .verdict.allow').waitFor();
    // The deletion's change in the history: picking its position checks as of then.
    await page.locator('[data-testid=history-change][data-allow=false] button.pos').first().click();
    await page.locator('[data-testid=check-result]', { hasText: `As of position ${deletedAt}` }).waitFor();
    await page.locator('[data-testid=check-result] .verdict.deny').waitFor();
    // The strip of positions: the tick of the seed's tuple, before the deletion, decides as of then (allowed).
    const tick = page.locator('[data-testid=as-of] g.tick', { hasText: 'RelationshipTupleCreated' }).first();
    const position = Number(await tick.getAttribute('data-position'));
    expect(position).toBeLessThan(deletedAt);
    await tick.click();
    await page.locator('[data-testid=check-result]', { hasText: `As of position ${position}` }).waitFor();
    await page.locator('[data-testid=check-result] .verdict.allow').waitFor();
    await shot('time-travel');
    await page.click('[data-testid=as-of] button:has-text("now")');
  });

  it('9. copies the environment and watches the task to its result', async () => {
    await open('#/copy');
    await page.fill('input[name=copy-key]', 'console-copy');
    await page.click('button:has-text("Start the copy")');
    const task = page.locator('[data-testid=copy-task]');
    await page.locator('[data-testid=copy-task][data-status=success]').waitFor({ timeout: 60_000 });
    await expect(task.textContent()).resolves.toContain('Created environment console-copy');
    await shot('copy');
  });

  it(`10. pages ${INSTANCES.toLocaleString('en')} instances without loading them all`, async () => {
    const env = await admin.environmentClient();
    await env.post(`${FACTS}/tenants`, { key: 'big', name: 'Big' });
    const BATCH = 10_000;
    for (let from = 0; from < INSTANCES; from += BATCH) {
      const operations = Array.from({ length: Math.min(BATCH, INSTANCES - from) }, (_, i) => ({
        key: `doc-${String(from + i).padStart(6, '0')}`,
        resource: 'file',
        tenant: 'big',
      }));
      const res = await env.request('PUT', `${FACTS}/bulk/resource_instances`, { operations });
      expect(res.status).toBe(200);
    }
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/v2/')) asked.push(r.url());
    });
    const started = Date.now();
    await open('#/facts?kind=instances&tenant=big&per_page=100');
    await page.locator('[data-testid=pager-status]', { hasText: `of ${INSTANCES.toLocaleString('en')}` }).waitFor();
    await page.click('button:has-text("next ›")');
    await page.locator('[data-testid=pager-status]', { hasText: '101–200' }).waitFor();
    const elapsed = Date.now() - started;
    expect(await page.locator('[data-testid=facts-instances] tbody tr').count()).toBe(100);
    // Every list the page asked for was one page of at most 100.
    for (const url of asked) expect(Number(new URL(url).searchParams.get('per_page') ?? 0)).toBeLessThanOrEqual(100);
    expect(elapsed).toBeLessThan(10_000);
    await shot('facts-paged');
  });
});
