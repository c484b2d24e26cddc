import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { ok, seedLegalReadsFiles, startConsoleBrowser, type ConsoleBrowser } from '../support/console-browser';
import { FACTS, loadFolderFileExample, type ApiClient, type ApiResponse } from '../support/embedded-server';

/**
 * The console as an auditor uses it, in chromium: checks and facts as of a
 * date and time (not only a recent position), the timeline filtered by time
 * range, audit metadata and the organisation's log, its export as JSON Lines
 * through the API's pages, a row's position opening Check with its user and
 * instance, an attribute update drawn old → new, and the Model's rules.
 * Every step also asserts that the page threw nothing.
 */
jest.setTimeout(180_000);

/** More entries than the timeline shows on one page (50), so an export of what is on screen would fall short. */
const EXTRA_INSTANCES = 60;

describe('the console for an auditor, in chromium', () => {
  let browser: ConsoleBrowser;
  let admin: ApiClient;
  let page: Page;
  /** A time (whole seconds, UTC) after the example was loaded and before anything below; and the log's position then. */
  let before = '';
  let positionBefore = 0;
  let grantedAt = 0;
  /** `2026-05-01T09:14:03Z` → what a datetime-local input takes. */
  const inputValue = (iso: string) => iso.slice(0, 19);
  const rows = () => page.locator('[data-testid=timeline] tbody tr');

  beforeAll(async () => {
    browser = await startConsoleBrowser();
    ({ admin, page } = browser);
    await loadFolderFileExample(admin);
    await ok(admin.post(`${FACTS}/users`, { key: 'carol', attributes: { department: 'legal' } }));
    positionBefore = Number((await ok(admin.post(`${FACTS}/tenants`, { key: 'globex', name: 'Globex' }))).headers.get('x-event-position'));
    // The next whole second: everything after it is later than `before` whatever the clock's milliseconds were.
    await new Promise((r) => setTimeout(r, 1100 - (Date.now() % 1000)));
    before = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    await new Promise((r) => setTimeout(r, 1100));

    const granted = await ok(
      admin.request(
        'POST',
        `${FACTS}/role_assignments`,
        { user: 'bob', role: 'viewer', resource_instance: 'folder:docs' },
        { 'x-audit-metadata': JSON.stringify({ ticket: 'SEC-7', approved_by: 'dana' }) },
      ),
    );
    grantedAt = Number(granted.headers.get('x-event-position'));
    await ok(admin.patch(`${FACTS}/users/carol`, { attributes: { department: 'finance' } }));
    await seedLegalReadsFiles(admin);
    for (let i = 0; i < EXTRA_INSTANCES; i++)
      await ok(admin.post(`${FACTS}/resource_instances`, { key: `f${i}`, resource: 'file', tenant: 'acme' }));

    await browser.signInToModel();
  });

  afterAll(async () => {
    await browser?.close();
  });

  afterEach(() => {
    expect(browser.pageErrors).toEqual([]);
  });

  it('opens production, and shows the attribute rules in the Model: each set rule with its sets’ conditions, and every condition set', async () => {
    await expect(page.locator('select[aria-label=environment] option:checked').textContent()).resolves.toBe('production');
    const rules = page.locator('[data-testid=model-rules]');
    const rule = rules.locator('[data-testid=set-rules] tr[data-set-rule]');
    await expect(rule.count()).resolves.toBe(1);
    const text = await rule.textContent();
    expect(text).toContain('legal');
    expect(text).toContain('user.department equals "legal"');
    expect(text).toContain('file:read');
    expect(text).toContain('all-files');
    await expect(rules.locator('[data-testid=condition-sets] tr[data-condition-set=all-files]').textContent()).resolves.toContain(
      'resource set of file',
    );
    await rules.scrollIntoViewIfNeeded();
    await browser.shot('model-rules');
  });

  it('checks as of a date and time, not only a recent position', async () => {
    await browser.open('#/check');
    await page.click('button[name=create-check-key]');
    await page.fill('input[name=user]', 'bob');
    await page.fill('input[name=action]', 'read');
    await page.fill('input[name=resource]', 'file:readme');
    await page.click('button:has-text("Check")');
    const result = page.locator('[data-testid=check-result]');
    await result.locator('.verdict.allow').waitFor();

    await page.click('button[name=time-travel]');
    await page.fill('input[name=as-of-time]', inputValue(before));
    await page.click('button[name=as-of-time-go]');
    await result.locator('.verdict.deny').waitFor();
    await expect(result.locator('p.muted').first().textContent()).resolves.toContain(`As of ${before.replace('T', ' ')}`);
    // The time resolved to the position the log was at then.
    await page.locator('[data-testid=as-of-value]', { hasText: `(position ${positionBefore})` }).waitFor();
    await browser.shot('time-travel-date');
  });

  it('lists the facts as of a past time, with the attributes they had then', async () => {
    await browser.open('#/facts?kind=users');
    const users = page.locator('[data-testid=facts-users]');
    await users.locator('tr', { hasText: 'carol' }).locator('text=department=finance').waitFor();

    await page.fill('input[name=as-of-time]', inputValue(before));
    await page.click('form.filters button[type=submit]');
    await page.locator('[data-testid=facts-as-of]', { hasText: `log position ${positionBefore}` }).waitFor();
    await users.locator('tr', { hasText: 'carol' }).locator('text=department=legal').waitFor();

    await browser.open(`#/facts?kind=assignments&user=bob&as_of=${encodeURIComponent(before)}`);
    await page.locator('[data-testid=facts-as-of]').waitFor();
    await page.locator('[data-testid=facts-assignments] td', { hasText: 'Nothing here.' }).waitFor();
    // Nothing of the past can be deleted.
    await browser.open(`#/facts?kind=assignments&user=bob`);
    await page.locator('[data-testid=facts-assignments] tr', { hasText: 'viewer' }).locator('button:has-text("delete")').waitFor();
    await browser.shot('facts-as-of');
  });

  it('filters the timeline on an audit metadata value by a click, and by a time range', async () => {
    await browser.open('#/timeline?type=RoleAssigned');
    const tagged = rows().filter({ has: page.locator('[data-testid=audit-metadata]') });
    await tagged.first().waitFor();
    await tagged.first().locator('button.chip', { hasText: 'ticket: SEC-7' }).click();
    await page.waitForFunction("location.hash.includes('audit_metadata.ticket=SEC-7')");
    // The list before was of RoleAssigned only: a UserCreated row is the new list's.
    await page.locator('[data-testid=timeline] tbody tr[data-type=UserCreated]').waitFor();
    // The request's events: assigning a role to a user not yet known made the user too.
    await expect(rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-type')))).resolves.toEqual([
      'RoleAssigned',
      'UserCreated',
    ]);
    await expect(rows().first().getAttribute('data-position')).resolves.toBe(String(grantedAt));
    await expect(page.locator('input[name=audit_metadata]').inputValue()).resolves.toBe('ticket=SEC-7');

    // Until `before`: the newest entry is the last one of then.
    await browser.open('#/timeline');
    await page.fill('input[name=until]', inputValue(before));
    await page.click('form.filters button[type=submit]');
    await page.waitForFunction("location.hash.includes('until=')");
    await page.locator(`[data-testid=timeline] tbody tr[data-position="${positionBefore}"]`).waitFor();
    await expect(rows().first().getAttribute('data-position')).resolves.toBe(String(positionBefore));
    await expect(page.locator('[data-testid=stream-status]').textContent()).resolves.toContain('off');
    // From `before`: the first entry after it is bob's assignment.
    await browser.open(`#/timeline?from=${encodeURIComponent(before)}&type=RoleAssigned`);
    // Bob's row (the list before it, until `before`, had none), then nothing else.
    await page.locator(`[data-testid=timeline] tbody tr[data-position="${grantedAt}"]`).waitFor();
    await expect(rows().count()).resolves.toBe(1);
    await browser.shot('timeline-filters');
  });

  it('exports the filtered range as JSON Lines through the pages of the API, beyond what is on screen', async () => {
    await browser.open('#/timeline?live=0');
    // A full page (the list before it, of one entry, is replaced), and no more.
    await rows().nth(49).waitFor();
    await expect(rows().count()).resolves.toBe(50);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button[name=export]')]);
    const lines = readFileSync(await download.path(), 'utf8')
      .trimEnd()
      .split('\n');
    const entries = lines.map((l) => JSON.parse(l) as { position: number; type: string });
    // Every entry of the environment's log up to the head the page was read at, oldest first.
    const all: number[] = [];
    for (let after: number | null = 0; after !== null;) {
      const r: ApiResponse = await ok(admin.get(`/v2/events/default/production?limit=1000&after=${after}`));
      all.push(...(r.body.data as Array<{ position: number }>).map((e) => e.position));
      after = r.body.next_after;
    }
    expect(entries.map((e) => e.position)).toEqual(all);
    expect(entries.length).toBeGreaterThan(50);
    await page.locator('[data-testid=export-status]', { hasText: `exported ${entries.length} entries` }).waitFor();

    // With a filter, only what it matches.
    await browser.open('#/timeline?audit_metadata.ticket=SEC-7');
    await page.locator('[data-testid=timeline] tbody tr[data-type=RoleAssigned]').waitFor();
    const [filtered] = await Promise.all([page.waitForEvent('download'), page.click('button[name=export]')]);
    const only = readFileSync(await filtered.path(), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const metadata = { ticket: 'SEC-7', approved_by: 'dana' };
    expect(only).toEqual([
      expect.objectContaining({ type: 'UserCreated', audit_metadata: metadata }),
      expect.objectContaining({ type: 'RoleAssigned', position: grantedAt, audit_metadata: metadata }),
    ]);
  });

  it("reads the organisation's own log: API keys, projects, environments", async () => {
    await browser.open('#/timeline');
    await page.selectOption('select[name=log]', 'org');
    await page.waitForFunction("location.hash.includes('log=org')");
    await page.locator('[data-testid=timeline] tbody tr[data-type=EnvironmentCreated]').first().waitFor();
    // The console's own check key, made in the test above.
    await page.locator('[data-testid=timeline] tbody tr[data-type=ApiKeyCreated]', { hasText: 'console checks' }).waitFor();
    await expect(page.locator('[data-testid=timeline-status]').textContent()).resolves.toContain("The organisation's log");
    // Environment filters do not apply there, so they are not offered.
    expect(await page.locator('input[name=user]').count()).toBe(0);
  });

  it('shows an attribute update old → new, and a row’s position opens Check with its user and instance as of it', async () => {
    await browser.open('#/timeline?type=UserUpdated');
    const update = page.locator('[data-testid=timeline] tbody tr[data-type=UserUpdated]');
    await expect(update.locator('[data-testid=attribute-changes]').textContent()).resolves.toContain('department: legal → finance');
    await browser.shot('timeline-attribute');

    await browser.open('#/timeline?user=bob');
    const row = page.locator(`[data-testid=timeline] tbody tr[data-position="${grantedAt}"]`);
    await row.locator('td a').first().click();
    await page.waitForFunction("location.hash.startsWith('#/check')");
    await expect(page.inputValue('input[name=user]')).resolves.toBe('bob');
    await expect(page.inputValue('input[name=resource]')).resolves.toBe('folder:docs');
    await page.locator('[data-testid=as-of-value]', { hasText: `position ${grantedAt}` }).waitFor();
    await page.fill('input[name=action]', 'read');
    await page.click('button:has-text("Check")');
    await page
      .locator('[data-testid=check-result]', { hasText: `As of position ${grantedAt}` })
      .locator('.verdict.allow')
      .waitFor();
  });

  it('names the actor of a decision change as the audit log does, and revokes its check key on sign-out', async () => {
    await page.click('button:has-text("Decision history")');
    const change = page.locator('[data-testid=history-change]').first();
    await expect(change.locator('[data-testid=history-actor]').textContent()).resolves.toMatch(/^api_key:/);

    const keys = async () =>
      ((await ok(admin.get('/v2/api-key?object_type=env&per_page=100'))).body.data as Array<{ name: string }>).filter(
        (k) => k.name === 'console checks',
      ).length;
    expect(await keys()).toBe(1);
    await page.click('button[name=sign-out]');
    await page.locator('input[name=api-key]').waitFor();
    expect(await keys()).toBe(0);
  });
});
