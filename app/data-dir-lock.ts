import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { StartupRefused } from './startup-refused';

/** The lock file of a data directory held by a one-process service. */
export const LOCK_FILE = 'rebac.lock';

/** Who holds a data directory: written into the lock file as JSON. */
export interface LockHolder {
  pid: number;
  host: string;
  /** When the holder started (ISO time). */
  started_at: string;
  /**
   * The holder's start in the kernel's clock ticks since boot (field 22 of
   * /proc/<pid>/stat), where there is a /proc: with it, a dead holder whose pid
   * a newer process reuses is still known dead. Null elsewhere.
   */
  proc_start: string | null;
}

export interface DataDirLock {
  path: string;
  holder: LockHolder;
  /** The dead holder whose lock file this start took over (a crash left it behind); null when there was none. */
  tookOver: LockHolder | null;
  /** Deletes the lock file if it is still this process's. Idempotent. */
  release(): void;
}

/** Data directories this process holds (a second service in the same process is refused as another process would be). */
const heldHere = new Set<string>();

/** How long an empty lock file is taken for one being written by a start that has just created it. */
const TORN_GRACE_MS = 5_000;
/** The pid given to an empty lock file within that grace (no process has it). */
const BEING_WRITTEN = -1;

const lockPath = (dataDir: string) => join(resolve(dataDir), LOCK_FILE);

/**
 * Refuses, without writing anything, when a live process holds `dataDir`; a
 * start checks this before it takes its port, so a second start on a held
 * directory names the holder rather than the port they would share.
 */
export function refuseIfHeld(dataDir: string): void {
  const holder = readHolder(lockPath(dataDir));
  if (holder && isAlive(holder, lockPath(dataDir))) throw heldBy(dataDir, holder);
}

/**
 * Takes `dataDir` for this process: creates it if missing and the lock file in
 * it exclusively (`O_CREAT | O_EXCL`, so of two starts at once one wins). A
 * lock file whose holder is dead (on this host: its pid is gone, or is now
 * another process) is taken over: a crash (SIGKILL, power loss) leaves the file
 * behind, and the next start must not need a hand to remove it. A holder on
 * another host (a data directory on a network file system) cannot be checked
 * and refuses the start, naming it. Throws StartupRefused naming the holder.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const path = lockPath(dataDir);
  mkdirSync(resolve(dataDir), { recursive: true });
  const holder: LockHolder = {
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
    proc_start: procStart(process.pid),
  };
  let tookOver: LockHolder | null = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createExclusively(path, holder)) {
      heldHere.add(path);
      let released = false;
      return {
        path,
        holder,
        tookOver,
        release() {
          if (released) return;
          released = true;
          heldHere.delete(path);
          // Only our own lock: a file another process wrote after taking over ours (it judged us dead) stays.
          const current = readHolder(path);
          if (current && current.pid === holder.pid && current.started_at === holder.started_at) unlinkQuietly(path);
        },
      };
    }
    const current = readHolder(path);
    if (current === null) continue; // Removed meanwhile (its holder stopped): try again.
    if (isAlive(current, path)) throw heldBy(dataDir, current);
    // A dead holder's file: removed only if it is still the one judged dead, then taken like a free one.
    const again = readHolder(path);
    if (again && again.pid === current.pid && again.started_at === current.started_at) {
      unlinkQuietly(path);
      tookOver = current;
    }
  }
  throw new StartupRefused(`could not take the lock ${path}: it kept changing (several services starting on ${resolve(dataDir)} at once?)`);
}

function createExclusively(path: string, holder: LockHolder): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${JSON.stringify(holder)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readHolder(path: string): LockHolder | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string' && typeof parsed.started_at === 'string')
      return { pid: parsed.pid, host: parsed.host, started_at: parsed.started_at, proc_start: parsed.proc_start ?? null };
  } catch {
    // Not JSON: below.
  }
  // Empty or torn: a start is writing it this moment (pid unknown, so taken as alive for a few seconds),
  // or one crashed between creating and writing it (older: nobody to name, treated as dead).
  const written = statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const fresh = Date.now() - written < TORN_GRACE_MS;
  return { pid: fresh ? BEING_WRITTEN : 0, host: hostname(), started_at: '', proc_start: null };
}

/** Whether the holder may still be running: on this host, its pid is alive and is the same process; elsewhere, assumed so. */
function isAlive(holder: LockHolder, path: string): boolean {
  if (holder.host !== hostname()) return true;
  if (holder.pid === BEING_WRITTEN) return true;
  if (holder.pid <= 0) return false;
  if (holder.pid === process.pid) return heldHere.has(path);
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: the pid exists but is another user's.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = procStart(holder.pid);
  return holder.proc_start === null || start === null || start === holder.proc_start;
}

/** Field 22 (starttime) of /proc/<pid>/stat; null without a /proc. */
function procStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

function heldBy(dataDir: string, holder: LockHolder): StartupRefused {
  if (holder.pid === BEING_WRITTEN)
    return new StartupRefused(
      `data directory ${resolve(dataDir)} is being taken by another start this moment (its lock file is not written yet)`,
    );
  const here = holder.host === hostname();
  return new StartupRefused(
    `data directory ${resolve(dataDir)} is in use by process ${holder.pid} on ${holder.host}, started ${holder.started_at}` +
      (here
        ? ': stop it first (one process serves a data directory)'
        : `: it cannot be checked from this host; if that process is gone, delete ${lockPath(dataDir)}`),
    { holder },
  );
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
