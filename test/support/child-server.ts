import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ChildServer {
  url: string;
  process: ChildProcess;
  output(): string;
  /** SIGKILL: no shutdown hooks run. */
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Runs `npm start`'s entry point (main.ts, compiled on the fly) in a child
 * process, so a test can kill it without ceremony and restart it on the same data.
 */
export async function startChildServer(env: Record<string, string>, entry = 'main.ts'): Promise<ChildServer> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited during start:\n${output}`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not ready in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    process: child,
    output: () => output,
    async kill9() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
