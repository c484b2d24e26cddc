import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');

export type TestServerName = 'kafka' | 'ferretdb' | 'postgres';

/** The verbs every server script takes, and scripts/postgres.sh's own (its standby). */
export type ServerVerb = 'kill' | 'restart' | 'status' | 'standby' | 'promote' | 'standby-stop';

/**
 * Runs `scripts/<server>.sh <verb> [args]` (same SERVERS_RUN_DIR and ports as
 * the scripts that started the servers: inherited from the environment) and
 * resolves with its stdout; rejects with its output if it fails or takes
 * longer than `timeoutMs`.
 */
export function serverScript(
  server: TestServerName,
  command: ServerVerb | [ServerVerb, ...string[]],
  timeoutMs = 150_000,
): Promise<string> {
  const [verb, ...args] = typeof command === 'string' ? [command] : command;
  return new Promise((resolvePromise, reject) => {
    execFile(
      'bash',
      [join(ROOT, 'scripts', `${server}.sh`), verb, ...args],
      { cwd: ROOT, timeout: timeoutMs, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`scripts/${server}.sh ${[verb, ...args].join(' ')} failed: ${error.message}\n${stdout}${stderr}`));
        else resolvePromise(stdout);
      },
    );
  });
}

/** Fails unless the server was started by scripts/ (so this test may kill and restart it). */
export async function expectManagedServer(server: TestServerName): Promise<void> {
  await serverScript(server, 'status', 10_000).catch((error: Error) => {
    throw new Error(
      `${server} must run under scripts/${server}.sh (started by .ci/e2e.sh or scripts/test-servers.sh start, same SERVERS_RUN_DIR): this test kills and restarts it.\n${error.message}`,
    );
  });
}

/** Leaves the server running for the tests after this one, whatever happened (a test may fail while it is down). */
export async function ensureRunning(server: TestServerName): Promise<void> {
  const running = await serverScript(server, 'status', 10_000).then(
    () => true,
    () => false,
  );
  if (!running) await serverScript(server, 'restart');
}
