import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

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

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Memory {
  /** Resident set size now, in MiB. */
  rssMiB: number;
  /** Peak resident set size since the process started, in MiB. */
  peakMiB: number;
  /** Of the RSS: anonymous memory (heaps, buffers), file pages mapped, shared memory (e.g. SQLite's WAL index), in MiB. */
  anonMiB: number;
  fileMiB: number;
  shmemMiB: number;
}

/** RSS of another process, from /proc (Linux). */
export function memoryOf(pid: number): Memory | null {
  // The service's check workers (HTTP_WORKERS) are its children: their memory is the service's too.
  // Summed per process, so pages they share (node's own code, mapped files) count once per process.
  const each = processTree(pid).flatMap((p) => {
    const memory = memoryOfProcess(p);
    return memory ? [memory] : [];
  });
  if (each.length === 0) return null;
  const sum = (field: keyof Memory) => each.reduce((total, m) => total + m[field], 0);
  return { rssMiB: sum('rssMiB'), peakMiB: sum('peakMiB'), anonMiB: sum('anonMiB'), fileMiB: sum('fileMiB'), shmemMiB: sum('shmemMiB') };
}

function memoryOfProcess(pid: number): Memory | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return {
      rssMiB: kb('VmRSS') / 1024,
      peakMiB: kb('VmHWM') / 1024,
      anonMiB: kb('RssAnon') / 1024,
      fileMiB: kb('RssFile') / 1024,
      shmemMiB: kb('RssShmem') / 1024,
    };
  } catch {
    return null;
  }
}

/** `pid` and its descendants (from /proc: each process's parent). */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const tree: number[] = [];
  const visit = (p: number) => {
    tree.push(p);
    for (const child of parents.get(p) ?? []) visit(child);
  };
  visit(pid);
  return tree;
}

/**
 * CPU time (user + system, every thread) a process has used so far, in seconds, from /proc
 * (Linux: utime and stime are fields 14 and 15 of /proc/PID/stat, in USER_HZ = 100 ticks per second).
 */
export function cpuSecondsOf(pid: number): number | null {
  // With its check workers (children), as memoryOf.
  const each = processTree(pid).map((p) => cpuSecondsOfProcess(p));
  return each.every((s) => s === null) ? null : each.reduce<number>((t, s) => t + (s ?? 0), 0);
}

/**
 * Bytes a process (with its check workers) has handed to write(2) so far, from /proc/PID/io
 * (`wchar`): the event log's appends and the read models' WAL frames and checkpoints, one page each,
 * plus its answers on sockets; so it follows the pages a write touches, however busy the machine is.
 */
export function bytesWrittenOf(pid: number): number | null {
  const each = processTree(pid).map((p) => {
    try {
      return Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${p}/io`, 'utf8'))?.[1] ?? NaN);
    } catch {
      return NaN;
    }
  });
  return each.every(Number.isNaN) ? null : each.reduce((t, b) => t + (Number.isNaN(b) ? 0 : b), 0);
}

/**
 * CPU time of a process's main thread alone (its event loop: JavaScript, and the work nothing moves to
 * another thread), in seconds, from /proc/PID/task/PID/stat: what bounds a Node process however many
 * cores its machine has.
 */
export function mainThreadCpuSecondsOf(pid: number): number | null {
  return cpuSecondsOfProcess(pid, `/proc/${pid}/task/${pid}/stat`);
}

function cpuSecondsOfProcess(pid: number, path = `/proc/${pid}/stat`): number | null {
  try {
    const stat = readFileSync(path, 'utf8');
    // Fields after the command name (which may hold spaces), starting at field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

export interface NodeChild {
  process: ChildProcess;
  pid: number;
  output(): string;
  /** SIGTERM, then wait for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/** Runs `entry` (relative to the repository) in its own node process: TypeScript through @swc-node/register, JavaScript (`dist/`) as is. */
export function spawnNode(entry: string, env: Record<string, string>, nodeArgs: string[] = []): NodeChild {
  const compile = entry.endsWith('.ts') ? ['-r', '@swc-node/register'] : [];
  const child = spawn(process.execPath, [...nodeArgs, ...compile, join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (d: Buffer) => {
    output += d.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    process: child,
    pid: child.pid!,
    output: () => output,
    async stop(graceMs = 30_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/** Polls `url` until it answers 2xx; returns the milliseconds waited. */
export async function waitForOk(url: string, child: NodeChild, timeoutMs: number, intervalMs = 20): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (child.process.exitCode !== null) throw new Error(`process exited while starting:\n${child.output().slice(-4000)}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return performance.now() - started;
    if (performance.now() - started > timeoutMs) {
      await child.stop(1000);
      throw new Error(`${url} not ready after ${timeoutMs} ms:\n${child.output().slice(-4000)}`);
    }
    await sleep(intervalMs);
  }
}
