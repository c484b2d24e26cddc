import express, { type RequestHandler } from 'express';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Where the console is served. */
export const CONSOLE_PATH = '/ui';

/**
 * The page may load only its own files and talk only to this origin (the
 * public API): whatever a crafted instance key or event could inject, it
 * cannot load a script or send the API key anywhere else. Preact sets styles
 * through the CSSOM, which `style-src 'self'` does not restrict.
 */
const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/**
 * The web console's static files (the Vite build in `dir`): `index.html` is
 * revalidated on every load, the content-hashed files under `assets/` are
 * cached for good. Only GET and HEAD (else 405); a missing file is a 404
 * here, never handed on to the API. When the console was not built, `/ui`
 * says so (503) instead of a bare 404.
 */
export function consoleUi(dir: string): RequestHandler {
  if (!existsSync(join(dir, 'index.html'))) {
    return (req, res, next) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return next();
      res
        .status(503)
        .type('text/plain')
        .send(`The console is not built (no ${join(dir, 'index.html')}): run npm run build\n`);
    };
  }
  const files = express.static(dir, {
    index: 'index.html',
    redirect: true,
    fallthrough: true,
    etag: true,
    lastModified: true,
    setHeaders: (res, path) => {
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
      res.setHeader('cache-control', /[\\/]assets[\\/]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.status(405).setHeader('allow', 'GET, HEAD').type('text/plain').send('The console only serves files: GET or HEAD\n');
      return;
    }
    // `/ui` itself: the page's relative asset URLs need the trailing slash.
    if (req.path === '/' && !req.originalUrl.split('?')[0]!.endsWith('/')) {
      res.redirect(301, `${CONSOLE_PATH}/`);
      return;
    }
    // A file the build does not have ends here, as a 404, rather than going on to the API (whose answer would be a 401).
    void files(req, res, (error?: unknown) => {
      if (error) return next(error);
      res.status(404).type('text/plain').send(`No such file in the console: ${req.path}\n`);
    });
  };
}

/** The built console of this installation: `dist/ui` beside the compiled server (or under it, when running from source). */
export function defaultConsoleDir(): string {
  const compiled = join(__dirname, '..', '..', 'ui');
  return existsSync(join(compiled, 'index.html')) ? compiled : join(__dirname, '..', '..', 'dist', 'ui');
}
