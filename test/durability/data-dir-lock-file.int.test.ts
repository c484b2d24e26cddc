import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCK_FILE, lockDataDir, refuseIfHeld } from '../../app/data-dir-lock';

/** The lock file's rules on the file itself: which holders are alive, which leftovers are taken over. */
describe('the data directory lock file', () => {
  let dir: string;
  let sleeper: ChildProcess | null = null;
  const lockFile = () => join(dir, LOCK_FILE);
  const write = (holder: object | string) => writeFileSync(lockFile(), typeof holder === 'string' ? holder : JSON.stringify(holder));
  const procStart = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rebac-lockfile-'));
  });
  afterEach(() => {
    sleeper?.kill('SIGKILL');
    sleeper = null;
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the directory and the file, and release removes only its own file', () => {
    const nested = join(dir, 'a', 'b');
    const lock = lockDataDir(nested);
    expect(JSON.parse(readFileSync(join(nested, LOCK_FILE), 'utf8'))).toEqual(lock.holder);
    expect(lock.holder).toMatchObject({ pid: process.pid, host: hostname() });
    expect(lock.tookOver).toBeNull();
    // Another start judged us dead and took the file: our release leaves theirs.
    writeFileSync(join(nested, LOCK_FILE), JSON.stringify({ ...lock.holder, pid: 1, started_at: '2030-01-01T00:00:00.000Z' }));
    lock.release();
    expect(existsSync(join(nested, LOCK_FILE))).toBe(true);
  });

  it('refuses while a live process of this host holds it, and takes it over once its pid is another process', async () => {
    sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    await new Promise((resolve) => sleeper!.once('spawn', resolve));
    const pid = sleeper.pid!;
    const holder = { pid, host: hostname(), started_at: '2026-12-01T10:00:00.000Z', proc_start: procStart(pid) };
    write(holder);
    expect(() => refuseIfHeld(dir)).toThrow(`is in use by process ${pid} on ${hostname()}, started 2026-12-01T10:00:00.000Z`);
    expect(() => lockDataDir(dir)).toThrow(`is in use by process ${pid}`);
    expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toEqual(holder);

    // The same pid with another start time: the holder died and its pid went to this sleeper.
    write({ ...holder, proc_start: '1' });
    const lock = lockDataDir(dir);
    expect(lock.tookOver).toEqual({ ...holder, proc_start: '1' });
    lock.release();
  });

  it('takes an empty lock file for one being written for a few seconds, then for a crash leftover', () => {
    write('');
    expect(() => lockDataDir(dir)).toThrow('is being taken by another start this moment');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockFile(), old, old);
    const lock = lockDataDir(dir);
    expect(lock.holder.pid).toBe(process.pid);
    lock.release();
    expect(existsSync(lockFile())).toBe(false);
  });

  it('counts a lock of its own pid that this process does not hold as a previous life (a container restarted as pid 1)', () => {
    write({ pid: process.pid, host: hostname(), started_at: '2026-12-01T10:00:00.000Z', proc_start: null });
    const lock = lockDataDir(dir);
    expect(lock.tookOver).toMatchObject({ pid: process.pid });
    // …and one it does hold as held.
    expect(() => lockDataDir(dir)).toThrow(`is in use by process ${process.pid}`);
    lock.release();
  });
});
