import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { ok, startConsoleBrowser, type ConsoleBrowser } from '../support/console-browser';
import { FACTS } from '../support/embedded-server';

/**
 * The timeline names the trace of a traced write (issue 48: an auditor goes from an entry to its
 * trace). The service traces every request (the default sampler) and exports to a sink here that
 * accepts and keeps nothing; a write sent with a caller's sampled `traceparent` continues that trace,
 * so its entry's trace id is known to the test.
 */
describe('console: the timeline shows the trace of a traced write', () => {
  let browser: ConsoleBrowser;
  let sink: http.Server;

  beforeAll(async () => {
    sink = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 }).end());
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    const { port } = sink.address() as AddressInfo;
    browser = await startConsoleBrowser({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` } });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => sink.close(() => resolve()));
  });

  it("shows the caller's trace id on the write's entry, and none on an entry whose write was not traced", async () => {
    const { admin, page } = browser;
    const traceId = randomBytes(16).toString('hex');
    const traced = await admin.request(
      'POST',
      `${FACTS}/tenants`,
      { key: 'acme-traced', name: 'Traced' },
      {
        traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
      },
    );
    expect(traced.status).toBe(200);
    // A caller that decided not to sample: the parent-based sampler follows it, so nothing is traced.
    const untraced = await admin.request(
      'POST',
      `${FACTS}/tenants`,
      { key: 'plain-tenant', name: 'Plain' },
      {
        traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-00`,
      },
    );
    expect(untraced.status).toBe(200);
    await ok(admin.get(`${FACTS}/tenants/plain-tenant`));

    await browser.signIn();
    await browser.open('#/timeline?type=TenantCreated');
    const row = (key: string) => page.locator('[data-testid=timeline] tbody tr', { hasText: key });
    await row('plain-tenant').waitFor();
    await expect(row('acme-traced').locator('.trace-id').textContent()).resolves.toBe(`trace ${traceId}`);
    expect(await row('plain-tenant').locator('.trace-id').count()).toBe(0);
    await browser.shot('timeline-trace');
    expect(browser.pageErrors).toEqual([]);
  });
});
