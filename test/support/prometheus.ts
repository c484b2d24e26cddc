/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format (what `GET /metrics` answers); comments and blank lines are skipped. */
export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** A scrape, with sums over the samples of a name whose labels include the given ones. */
export class Scrape {
  constructor(
    readonly text: string,
    readonly samples: Sample[] = parsePrometheus(text),
  ) {}

  static async of(url: string, headers: Record<string, string> = {}): Promise<Scrape> {
    const response = await fetch(`${url}/metrics`, { headers });
    if (response.status !== 200) throw new Error(`GET ${url}/metrics answered ${response.status}`);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return new Scrape(await response.text());
  }

  /** Whether any sample has this name (and these labels). */
  has(name: string, labels: Record<string, string> = {}): boolean {
    return this.matching(name, labels).length > 0;
  }

  /** The sum of the matching samples (0 when there are none). */
  sum(name: string, labels: Record<string, string> = {}): number {
    return this.matching(name, labels).reduce((total, s) => total + s.value, 0);
  }

  /** The value of the one matching sample. */
  value(name: string, labels: Record<string, string> = {}): number {
    const found = this.matching(name, labels);
    if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
    return found[0]!.value;
  }

  /** Every value one label takes among the samples of a name. */
  labelValues(name: string, label: string): string[] {
    return [...new Set(this.matching(name, {}).map((s) => s.labels[label]!))].sort();
  }

  private matching(name: string, labels: Record<string, string>): Sample[] {
    return this.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  }
}
