import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Runs a workload like a bulk load's in a fresh node process, with limitHeapGrowth(percent): a
 * live set that stays, and request-sized batches that each live across a few young collections
 * (so they are promoted) and then die. Returns the heap's largest size, in MiB.
 */
function heapPeakMiB(percent: number): number {
  const script = `
    const { getHeapStatistics } = require('node:v8');
    require(${JSON.stringify(join(__dirname, 'heap-growth.ts'))}).limitHeapGrowth(${percent});
    const live = [];
    for (let i = 0; i < 400000; i++) live.push({ key: 'live-' + i, slot: i });
    const inFlight = [];
    let peak = 0;
    for (let batch = 0; batch < 400; batch++) {
      const items = [];
      for (let i = 0; i < 10000; i++) items.push({ key: 'item-' + batch + '-' + i, batch });
      inFlight.push(items);
      if (inFlight.length > 20) inFlight.shift();
      peak = Math.max(peak, getHeapStatistics().total_heap_size);
    }
    process.stdout.write(JSON.stringify({ peakMiB: peak / 1048576, batches: inFlight.length, live: live.length }));
  `;
  const out = execFileSync(process.execPath, ['-r', '@swc-node/register', '-e', script], { encoding: 'utf8' });
  return (JSON.parse(out) as { peakMiB: number }).peakMiB;
}

describe('limitHeapGrowth', () => {
  it('keeps a heap that promotes short-lived garbage well below where V8 left to itself lets it grow', () => {
    const own = heapPeakMiB(0);
    const bounded = heapPeakMiB(50);
    expect(bounded).toBeLessThan(own * 0.75);
  });
});
