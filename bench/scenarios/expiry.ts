import { TENANT } from '../lib/dataset';
import type { HttpClient } from '../lib/http';
import { repeatLoad, type Repeated } from '../lib/load';
import { assignmentsPost, bulkSend, instancesPut, loadSchema, range, tuplesPost } from '../lib/load-ours';
import type { BenchOptions } from '../lib/options';
import { gauge } from '../lib/prometheus';
import type { ScenarioResult } from '../lib/results';
import { environmentKey, runOptions, startService } from '../lib/service';

/** Items per bulk request, two requests in flight, as the main load. */
const CHUNK = 1_000;
const CONCURRENCY = 2;
/** Distinct checks each load rotates through. */
const CHECKS = 4_000;
/** One assignment in this many ends during the measured runs. */
const EXPIRING_ONE_IN = 10;

type Context = { options: BenchOptions; log: (message: string) => void };

/**
 * Access that expires (issue 47, docs/expiring-access.md), two rows:
 *
 * - `expiry-checks`: `POST /allowed` for a user's document, derived from their editor role on its
 *   folder, 4 connections, cached (the default) and uncached. First with no end anywhere, then with
 *   one assignment in ten ending during the measured runs (the ends spread over them): the cache
 *   keeps an allow only until the first end it was derived from, the scheduler appends expiry
 *   events and the projections drop what ended, all while the checks run. Target: ≤ 10% dearer.
 * - `mass-expiry`: 100,000 assignments (10,000 quick) that all end at one instant. Bulk checks of
 *   them run from before the end until every expiry event is in the log; each check sent at or
 *   after the end must deny (the allows among them are counted: the target is none), and the row's
 *   figure is the time from the end until the audit log lists all the expiry events.
 */
export async function expiryScenarios(ctx: Context): Promise<ScenarioResult[]> {
  return [...(await expiringChecks(ctx)), await massExpiry(ctx)];
}

/** The main data set's model, and `size` folders `f<i>`, each the parent of document `d<i>`. */
export async function loadFoldersAndDocuments(api: HttpClient, size: number): Promise<void> {
  await loadSchema(api);
  await bulkSend(
    (function* () {
      yield* range(size, (i) => ({ key: `f${i}`, resource: 'folder', tenant: TENANT }));
      yield* range(size, (i) => ({ key: `d${i}`, resource: 'document', tenant: TENANT }));
    })(),
    CHUNK,
    CONCURRENCY,
    instancesPut(api),
  );
  await bulkSend(
    range(size, (i) => ({ subject: `folder:f${i}`, relation: 'parent', object: `document:d${i}` })),
    CHUNK,
    CONCURRENCY,
    tuplesPost(api),
  );
}

/** User `u<i>` is editor of folder `f<i>` (so of document `d<i>`), until `expiresAt` if given. */
export const assignment = (i: number, expiresAt?: string) => ({
  user: `u${i}`,
  role: 'editor',
  resource_instance: `folder:f${i}`,
  ...(expiresAt === undefined ? {} : { expires_at: expiresAt }),
});

const readDocument = (user: number, document: number) => ({
  user: `u${user}`,
  action: 'read',
  resource: { type: 'document', key: `d${document}`, tenant: TENANT },
});

/** The log's head (the newest event of the environment). */
async function headPosition(api: HttpClient): Promise<number> {
  const page = await api.ok('GET', `/v2/events/default/production?order=desc&limit=1`);
  return Number(page.head_position);
}

async function expiringChecks(ctx: Context): Promise<ScenarioResult[]> {
  const { durationS, repeat, warmupS } = ctx.options;
  const size = ctx.options.mode === 'quick' ? 2_000 : 20_000;
  const service = await startService(runOptions(ctx.options, 'expiry-checks'));
  try {
    const api = await environmentKey(service.admin);
    ctx.log(`expiry: ${size.toLocaleString('en-US')} folders, documents and editors, no end yet`);
    await loadFoldersAndDocuments(api, size);
    await bulkSend(
      range(size, (i) => assignment(i)),
      CHUNK,
      CONCURRENCY,
      assignmentsPost(api),
    );
    // Half allowed (the user's own document, through the folder), half denied (the next user's).
    const check = (k: number) => (k % 2 === 0 ? readDocument(k / 2, k / 2) : readDocument((k - 1) / 2, (k + 1) / 2));
    const bodies = Array.from({ length: CHECKS }, (_, k) => JSON.stringify(check(k)));
    const load = (cached: boolean, label: string): Promise<Repeated> => {
      let k = 0;
      return repeatLoad(
        {
          url: `${service.url}/allowed`,
          headers: { ...api.headers, ...(cached ? {} : { 'cache-control': 'no-cache' }) },
          body: () => bodies[k++ % bodies.length]!,
          connections: 4,
          durationS,
          label,
        },
        repeat,
        warmupS,
      );
    };
    ctx.log('expiry: checks with no end, cached then uncached');
    const plainCached = await load(true, 'checks-no-end-cached');
    const plainUncached = await load(false, 'checks-no-end-uncached');

    // Every tenth user of the checked ones (and of the rest) gets an end inside the next two loads'
    // measured seconds, spread over them; the writes take a moment, so the window starts after them.
    const window = 2 * (warmupS + repeat * durationS) * 1000;
    const writesMs = 2_000;
    const from = Date.now() + writesMs + warmupS * 1000;
    const ending = Array.from({ length: Math.ceil(size / EXPIRING_ONE_IN) }, (_, j) => j * EXPIRING_ONE_IN);
    // Over the window less the first warm-up and the last run, so that every end falls inside it.
    const spread = window - (warmupS + durationS) * 1000;
    const endOf = (j: number) => new Date(from + Math.floor((j / ending.length) * spread)).toISOString();
    await bulkSend(
      ending.map((i, j) => assignment(i, endOf(j))),
      CHUNK,
      CONCURRENCY,
      assignmentsPost(api),
    );
    const wait = from - warmupS * 1000 - Date.now();
    if (wait < 0) throw new Error(`setting ${ending.length} ends took ${writesMs - wait} ms, longer than the ${writesMs} ms allowed`);
    await new Promise((resolve) => setTimeout(resolve, wait));
    ctx.log(`expiry: checks while ${ending.length.toLocaleString('en-US')} assignments end, cached then uncached`);
    const endingCached = await load(true, 'checks-ending-cached');
    const endingUncached = await load(false, 'checks-ending-uncached');
    const lastEnd = Date.parse(endOf(ending.length - 1));
    if (Date.now() <= lastEnd) throw new Error(`the measured runs finished ${lastEnd - Date.now()} ms before the last end`);

    // Every user checked: those whose assignment ended are denied, the others still allowed.
    const checked = Array.from({ length: CHECKS / 2 }, (_, u) => u);
    const allowed: boolean[] = [];
    for (let from = 0; from < checked.length; from += 1000) {
      const answers = await api.ok(
        'POST',
        '/allowed/bulk',
        checked.slice(from, from + 1000).map((u) => readDocument(u, u)),
      );
      allowed.push(...(answers.allow as Array<{ allow: boolean }>).map((a) => a.allow));
    }
    const wrong = checked.filter((u, n) => allowed[n] !== (u % EXPIRING_ONE_IN !== 0)).length;
    if (wrong > 0) throw new Error(`${wrong} of ${checked.length} checks after the ends answer otherwise than the ends say`);

    const row = (cached: boolean, plain: Repeated, measured: Repeated): ScenarioResult => {
      const cost = plain.median.rps / measured.median.rps;
      const name = cached ? 'cached' : 'uncached';
      return {
        id: `expiry-checks-${name}`,
        title: `POST /allowed while 10% of the grants end vs with no end, ${name}`,
        value: measured.median.rps,
        unit: 'req/s',
        better: 'higher',
        p50Ms: measured.median.p50Ms,
        p99Ms: measured.median.p99Ms,
        runs: measured.runs.map((r) => r.rps),
        baseline: { value: plain.median.rps, unit: 'req/s (no end)', ratio: 1 / cost },
        target: { text: 'checks cost ≤ 10% more while grants end', met: cost <= 1.1 },
        notes: `4 conns${cached ? '' : ', Cache-Control: no-cache'}; ${size.toLocaleString('en-US')} editors of a folder, checks on its document (derived); ${ending.length.toLocaleString('en-US')} ends spread over the measured runs; no end ${Math.round(plain.median.rps)} req/s (p99 ${plain.median.p99Ms} ms); ending costs ${cost.toFixed(2)}×; answers after the ends verified on ${checked.length} users`,
        details: { size, ends: ending.length, plain: plain.runs, ending: measured.runs, cost },
      };
    };
    return [row(true, plainCached, endingCached), row(false, plainUncached, endingUncached)];
  } finally {
    await service.stop();
  }
}

/** What the checkers saw, by whether the check was sent before the end or at/after it. */
interface Tally {
  before: number;
  after: number;
  allowsAfter: number;
  requests: number;
}

async function massExpiry(ctx: Context): Promise<ScenarioResult> {
  const size = ctx.options.mode === 'quick' ? 10_000 : 100_000;
  const service = await startService(runOptions(ctx.options, 'mass-expiry'));
  try {
    const api = await environmentKey(service.admin);
    // The end is set ahead by twice what loading the instances and tuples took (the assignments
    // cost about as much) and a margin, so that it falls after the load, not during it.
    const started = performance.now();
    await loadFoldersAndDocuments(api, size);
    const end = Date.now() + 2 * (performance.now() - started) + 10_000;
    const endIso = new Date(end).toISOString();
    ctx.log(`expiry: ${size.toLocaleString('en-US')} assignments ending at ${endIso}`);
    await bulkSend(
      range(size, (i) => assignment(i, endIso)),
      CHUNK,
      CONCURRENCY,
      assignmentsPost(api),
    );
    const after = await headPosition(api);
    const margin = end - Date.now();
    if (margin < 2_000) throw new Error(`the assignments were loaded ${-margin} ms before their end, less than the 2 s the checks need`);
    await new Promise((resolve) => setTimeout(resolve, margin - 2_000));

    const tally: Tally = { before: 0, after: 0, allowsAfter: 0, requests: 0 };
    let checking = true;
    const checker = async (seed: number) => {
      let k = seed;
      while (checking) {
        const users = Array.from({ length: 50 }, () => (k = (k * 1_103_515_245 + 12_345) % 2 ** 31) % size);
        const sentAt = Date.now();
        const answers = await api.ok(
          'POST',
          '/allowed/bulk',
          users.map((u) => readDocument(u, u)),
        );
        tally.requests += 1;
        for (const answer of answers.allow as Array<{ allow: boolean }>) {
          if (sentAt < end) tally.before += 1;
          else {
            tally.after += 1;
            if (answer.allow) tally.allowsAfter += 1;
          }
        }
      }
    };
    const checkers = [1, 2, 3, 4].map((seed) => checker(seed));
    // Nothing else writes meanwhile: the log's head reaching `after + size` is every expiry appended.
    const appended = untilAppended(service.url, after + size);
    const visible = await expiriesVisible(api, after, size, endIso);
    const appendedAt = await appended;
    // A second more of checks after the last expiry is in the log.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    checking = false;
    await Promise.all(checkers);
    const seconds = (visible.at - end) / 1000;
    const appendedS = (appendedAt - end) / 1000;
    ctx.log(
      `expiry: ${size.toLocaleString('en-US')} expiry events in the log ${seconds.toFixed(1)} s after the end; ${tally.allowsAfter} allows after it`,
    );
    return {
      id: 'mass-expiry',
      title: `${size.toLocaleString('en-US')} assignments ending at one instant: until every expiry event is in the log`,
      value: seconds,
      unit: 's',
      better: 'lower',
      target: { text: 'in the log within seconds (≤ 10 s); no check after the end allows', met: seconds <= 10 && tally.allowsAfter === 0 },
      notes: `all appended ${appendedS.toFixed(1)} s after the end (the scheduler), all listed ${seconds.toFixed(1)} s after it (the projections); ${tally.before.toLocaleString('en-US')} checks sent before the end, ${tally.after.toLocaleString('en-US')} at or after it (bulks of 50, 4 in flight, cached): ${tally.allowsAfter} allowed after the end; every event's expires_at is the end${visible.otherEnds ? `, except ${visible.otherEnds}` : ''}`,
      details: { size, ...tally, ...visible, appendedS, end: endIso },
    };
  } finally {
    await service.stop();
  }
}

/** When the log's head, as the service's `/metrics` says, reaches `position` (looked at every 100 ms). */
async function untilAppended(url: string, position: number): Promise<number> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const head = gauge(await (await fetch(`${url}/metrics`)).text(), 'rebac_event_log_head_position') ?? 0;
    if (head >= position) return Date.now();
    if (Date.now() > deadline) throw new Error(`the log's head at ${head}, not ${position}, after 300 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Follows the audit log from `after` until it lists `count` RoleAssignmentExpired events (the
 * instant it does: `at`), and counts those whose effective time is not `end`.
 */
async function expiriesVisible(
  api: HttpClient,
  after: number,
  count: number,
  end: string,
): Promise<{ at: number; found: number; otherEnds: number }> {
  let found = 0;
  let otherEnds = 0;
  let cursor = after;
  const deadline = Date.now() + 300_000;
  while (found < count) {
    if (Date.now() > deadline) throw new Error(`only ${found} of ${count} expiry events in the log after 300 s`);
    const page = await api.ok('GET', `/v2/events/default/production?type=RoleAssignmentExpired&after=${cursor}&limit=1000`);
    for (const entry of page.data as Array<{ data: { expires_at?: string } }>) {
      found += 1;
      if (entry.data.expires_at !== end) otherEnds += 1;
    }
    if (page.next_after !== null) cursor = page.next_after;
    else {
      cursor = page.head_position;
      if (found < count) await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return { at: Date.now(), found, otherEnds };
}
