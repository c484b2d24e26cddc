import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../support/embedded-server';

/** A stand-in for the Vite build: the handler serves whatever dist/ui holds. */
function fakeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rebac-ui-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" src="/ui/assets/index-abc123.js"></script>');
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("console")');
  return dir;
}

describe('the console under /ui', () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = fakeBuild();
    server = await startTestServer({ env: { UI_DIR: dir } });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the page without a key, revalidated, with a policy that keeps it to this origin', async () => {
    const res = await fetch(`${server.url}/ui/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('/ui/assets/index-abc123.js');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('redirects /ui to /ui/ and caches the hashed assets for good', async () => {
    const bare = await fetch(`${server.url}/ui`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/ui/');
    const asset = await fetch(`${server.url}/ui/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
  });

  it("leads from the service's address to the console (302, so switching the console off is not remembered)", async () => {
    for (const path of ['/', '/?from=bookmark']) {
      const res = await fetch(`${server.url}${path}`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/ui/');
    }
    // Only the root and only to read: anything else there is the API's (which wants a key).
    expect((await fetch(`${server.url}/`, { method: 'POST', redirect: 'manual' })).status).toBe(401);
    expect((await fetch(`${server.url}/x`, { redirect: 'manual' })).status).toBe(401);
  });

  it("ends every /ui request itself, and leaves the API's key check alone", async () => {
    const missing = await fetch(`${server.url}/ui/assets/nope.js`);
    expect(missing.status).toBe(404);
    const post = await fetch(`${server.url}/ui/`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    // The page is not a way around the key: the API beside it still wants one.
    expect((await fetch(`${server.url}/v2/projects`)).status).toBe(401);
    expect((await fetch(`${server.url}/ui/../v2/projects`)).status).toBe(401);
  });
});

describe('the console switched off or not built', () => {
  it('UI_ENABLED=false: /ui is not served', async () => {
    const dir = fakeBuild();
    const server = await startTestServer({ env: { UI_DIR: dir, UI_ENABLED: 'false' } });
    try {
      expect((await fetch(`${server.url}/ui/`)).status).toBe(401);
      // No console to lead to: the root is the API's, as any other path.
      expect((await fetch(`${server.url}/`, { redirect: 'manual' })).status).toBe(401);
      expect((await fetch(`${server.url}/ui/`, { headers: { authorization: `Bearer ${server.adminKey}` } })).status).toBe(404);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('no build: /ui says to run the build', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rebac-ui-empty-'));
    const server = await startTestServer({ env: { UI_DIR: dir } });
    try {
      const res = await fetch(`${server.url}/ui/`);
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('npm run build');
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
