// The web console's build: `npm run build` runs it after the server's tsc, into dist/ui, which
// the one-process service serves under /ui (command-service/http/console-ui.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/ui/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // One small bundle: no source maps shipped, no inline assets (the CSP allows only files of this origin).
    sourcemap: false,
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
