import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { okBody as ok, startConsoleBrowser, type ConsoleBrowser } from '../support/console-browser';
import { FACTS, SCHEMA, loadFolderFileExample, type ApiClient } from '../support/embedded-server';

/**
 * The Tests page in chromium (docs/assertions.md): assertions added and changed
 * through the page, run (one fails, one passes, the answer got beside the one
 * expected), exported as a downloaded file and imported back (merge, then
 * replace), a model edit dry-run (the flipped assertion and changed decision shown, the
 * environment unchanged), and run as of a past ISO time. Every step also asserts that the
 * page threw nothing.
 */
jest.setTimeout(120_000);

describe('the console Tests page, in chromium', () => {
  let browser: ConsoleBrowser;
  let admin: ApiClient;
  let page: Page;
  const rows = () => page.locator('[data-testid=assertion-row]');
  const row = (name: string) => rows().filter({ hasText: name });
  const add = async (fields: { name: string; user: string; action: string; resource: string; expected: 'allow' | 'deny' }) => {
    await page.click('button[name=add-assertion]');
    const form = page.locator('[data-testid=assertion-form]');
    await form.locator('input[name=assertion-name]').fill(fields.name);
    await form.locator('input[name=assertion-user]').fill(fields.user);
    await form.locator('input[name=assertion-action]').fill(fields.action);
    await form.locator('input[name=assertion-resource]').fill(fields.resource);
    await form.locator('select[name=assertion-expected]').selectOption(fields.expected);
    await form.locator('button[name=assertion-submit]').click();
    await row(fields.name).waitFor();
  };
  let runs = 0;
  const run = async (asOf: string) => {
    await page.fill('input[name=run-as-of]', asOf);
    await page.click('button[name=run-assertions]');
    runs += 1;
    const summary = page.locator(`[data-testid=run-summary][data-run="${runs}"]`);
    await summary.waitFor();
    return summary.textContent();
  };
  const resultOf = async (name: string) => ({
    result: await row(name).getAttribute('data-result'),
    expected: await row(name).locator('[data-testid=expected]').textContent(),
    actual: await row(name).locator('[data-testid=actual]').textContent(),
  });

  beforeAll(async () => {
    browser = await startConsoleBrowser();
    ({ admin, page } = browser);
    await loadFolderFileExample(admin);
    await browser.signInToModel();
    await browser.open('#/tests');
    await page.locator('[data-testid=no-assertions]').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
  });

  afterEach(() => {
    expect(browser.pageErrors).toEqual([]);
  });

  it('adds assertions through the page and runs them: one passes, one fails with its actual answer', async () => {
    await add({ name: 'alice writes the readme', user: 'alice', action: 'write', resource: 'file:readme', expected: 'allow' });
    await add({ name: 'mallory reads the readme', user: 'mallory', action: 'read', resource: 'file:readme', expected: 'allow' });
    const stored = await ok(admin.get(`${SCHEMA}/assertions`));
    expect(stored.map((a: any) => [a.name, a.user.key, a.resource, a.expected])).toEqual([
      ['alice writes the readme', 'alice', { type: 'file', key: 'readme', tenant: null, attributes: null }, 'allow'],
      ['mallory reads the readme', 'mallory', { type: 'file', key: 'readme', tenant: null, attributes: null }, 'allow'],
    ]);
    await expect(row('alice writes the readme').getAttribute('data-result')).resolves.toBe('not-run');

    await expect(run('')).resolves.toMatch(/failed: 1 of 2 passed at position \d+ \(now\)/);
    await expect(resultOf('alice writes the readme')).resolves.toEqual({ result: 'passed', expected: 'allow', actual: 'allow' });
    await expect(resultOf('mallory reads the readme')).resolves.toEqual({ result: 'failed', expected: 'allow', actual: 'deny' });
    await browser.shot('tests-run');
  });

  it('edits an assertion (its row is not run until the next run) and deletes one', async () => {
    await row('mallory reads the readme').locator('button[name=edit-assertion]').click();
    const form = page.locator('[data-testid=assertion-form]');
    await expect(form.locator('input[name=assertion-user]').inputValue()).resolves.toBe('mallory');
    await form.locator('input[name=assertion-name]').fill('mallory may not read the readme');
    await form.locator('select[name=assertion-expected]').selectOption('deny');
    await form.locator('button[name=assertion-submit]').click();
    await row('mallory may not read the readme').waitFor();
    await expect(row('mallory may not read the readme').getAttribute('data-result')).resolves.toBe('not-run');
    await expect(run('')).resolves.toMatch(/^passed: 2 of 2 passed/);
    await expect(resultOf('mallory may not read the readme')).resolves.toEqual({ result: 'passed', expected: 'deny', actual: 'deny' });

    await add({ name: 'short-lived', user: 'bob', action: 'read', resource: 'folder', expected: 'deny' });
    await row('short-lived').locator('button[name=delete-assertion]').click();
    await row('short-lived').waitFor({ state: 'detached' });
    expect((await ok(admin.get(`${SCHEMA}/assertions`))).map((a: any) => a.name)).toEqual([
      'alice writes the readme',
      'mallory may not read the readme',
    ]);
  });

  it('exports the assertions as a downloaded file and imports files back, merged and replaced', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button[name=export-assertions]')]);
    expect(download.suggestedFilename()).toBe('assertions.json');
    const file = JSON.parse(readFileSync(await download.path(), 'utf8'));
    expect(file).toEqual(await ok(admin.get(`${SCHEMA}/assertions/export`)));
    expect(file.assertions).toHaveLength(2);

    const extra = {
      version: 1,
      assertions: [{ name: 'bob reads docs', user: 'bob', action: 'read', resource: 'folder:docs', expected: 'deny' }],
    };
    const importFile = async (content: unknown, mode: 'merge' | 'replace', expected: string) => {
      await page.setInputFiles('input[name=import-file]', {
        name: 'assertions.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify(content)),
      });
      await page.selectOption('select[name=import-mode]', mode);
      await page.click('button[name=import-assertions]');
      const result = page.locator('[data-testid=import-result]', { hasText: expected });
      await result.waitFor();
      return result.textContent();
    };
    await importFile(extra, 'merge', '1 created, 0 updated, 0 deleted, 0 unchanged');
    await row('bob reads docs').waitFor();
    await expect(rows().count()).resolves.toBe(3);

    await importFile(file, 'replace', '0 created, 0 updated, 1 deleted, 2 unchanged');
    await row('bob reads docs').waitFor({ state: 'detached' });
    expect(await ok(admin.get(`${SCHEMA}/assertions/export`))).toEqual(file);

    await page.setInputFiles('input[name=import-file]', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not json') });
    await page.click('button[name=import-assertions]');
    await expect(page.locator('[role=alert]').textContent()).resolves.toContain('notes.txt is not a JSON document');
  });

  it('dry-runs a model edit: the assertion it would flip and the changed decision, the environment unchanged', async () => {
    const editorBefore = await ok(admin.get(`${SCHEMA}/resources/file/roles/editor`));
    await page.fill('textarea[name=dry-run-edits]', 'not json');
    await page.click('button[name=dry-run]');
    await expect(page.locator('[data-testid=dry-run] [role=alert]').textContent()).resolves.toContain('the edits are not JSON');

    const edits = [{ method: 'PATCH', path: `${SCHEMA}/resources/file/roles/editor`, body: { permissions: ['read'] } }];
    await page.fill('textarea[name=dry-run-edits]', JSON.stringify(edits));
    await page.click('button[name=dry-run]');
    const result = page.locator('[data-testid=dry-run-result]');
    await result.waitFor();
    await expect(result.locator('[data-testid=dry-run-flipped-summary]').textContent()).resolves.toBe('1 of 2 assertions would flip');
    const flipped = result.locator('[data-testid=flipped-row]');
    await expect(flipped.count()).resolves.toBe(1);
    await expect(flipped.locator('td').allTextContents()).resolves.toEqual(['alice writes the readme', 'allow', 'allow', 'deny', 'FAIL']);
    const changed = result.locator('[data-testid=changed-row]');
    await expect(changed.count()).resolves.toBe(1);
    await expect(changed.locator('td').allTextContents()).resolves.toEqual(['alice', 'write', 'file:readme', 'acme', 'allow → deny']);
    await result.scrollIntoViewIfNeeded();
    await browser.shot('tests-dry-run');

    // Only the copy was edited.
    expect(await ok(admin.get(`${SCHEMA}/resources/file/roles/editor`))).toEqual(editorBefore);
    expect(await ok(admin.post(`${SCHEMA}/assertions/run`, {}))).toMatchObject({ passed: true, total: 2 });

    // An edit the copy refuses is named, and nothing is shown as its result.
    await page.fill('textarea[name=dry-run-edits]', JSON.stringify([{ method: 'DELETE', path: `${SCHEMA}/resources/no-such-type` }]));
    await page.click('button[name=dry-run]');
    await expect(page.locator('[data-testid=dry-run] [role=alert]').textContent()).resolves.toContain(
      'refused on the scratch copy with 404',
    );
    await expect(result.count()).resolves.toBe(0);
  });

  it('runs as of a past ISO date-time: the answer before the role was taken away', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 1100));
    const unassigned = await admin.delete(`${FACTS}/role_assignments`, {
      user: 'alice',
      role: 'editor',
      resource_instance: 'folder:docs',
      tenant: 'acme',
    });
    expect(unassigned.status).toBe(204);

    await expect(run('')).resolves.toMatch(/^failed: 1 of 2 passed/);
    await expect(resultOf('alice writes the readme')).resolves.toEqual({ result: 'failed', expected: 'allow', actual: 'deny' });
    await expect(run(before)).resolves.toMatch(
      new RegExp(`^passed: 2 of 2 passed at position \\d+ \\(as of ${before.replace(/[.]/g, '\\.')}\\)`),
    );
    await expect(resultOf('alice writes the readme')).resolves.toEqual({ result: 'passed', expected: 'allow', actual: 'allow' });
    await browser.shot('tests-as-of');

    await page.fill('input[name=run-as-of]', 'last tuesday');
    await page.click('button[name=run-assertions]');
    await expect(page.locator('[role=alert]').first().textContent()).resolves.toContain('neither a log position nor an ISO date-time');
  });
});
