import type { Api } from './client';

/**
 * Saved assertions (docs/assertions.md) as the API answers them, and the calls
 * the Tests page makes, under `/v2/schema/{proj}/{env}/assertions`.
 */

export type Expected = 'allow' | 'deny';
export type Attributes = Record<string, unknown> | null;

export interface Assertion {
  id: string;
  name: string | null;
  description: string | null;
  user: { key: string; attributes: Attributes };
  action: string;
  resource: { type: string; key: string | null; tenant: string | null; attributes: Attributes };
  context: Attributes;
  expected: Expected;
}

/** What a create or a change sends (ids are the service's). */
export interface AssertionInput {
  name?: string | null;
  description?: string | null;
  user: { key: string; attributes?: Record<string, unknown> };
  action: string;
  resource: { type: string; key?: string; tenant?: string; attributes?: Record<string, unknown> };
  context?: Record<string, unknown> | null;
  expected: Expected;
}

export interface AssertionResult {
  assertion: Assertion;
  expected: Expected;
  actual: Expected;
  passed: boolean;
}

export interface RunReport {
  passed: boolean;
  position: number;
  total: number;
  failed: number;
  results: AssertionResult[];
}

export interface AssertionsFile {
  version: 1;
  assertions: Array<Partial<Assertion>>;
}

export interface ImportAnswer {
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
  assertions: Assertion[];
}

export type ImportMode = 'replace' | 'merge';

/** One request of a proposed edit, as the API takes it (`docs/assertions.md`, "Dry run"). */
export interface Edit {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
}

export interface DryRunReport {
  position: number;
  edits: Array<{ method: string; path: string; status: number }>;
  assertions: {
    total: number;
    flipped: Array<{ assertion: Assertion; expected: Expected; before: Expected; after: Expected; passes_after: boolean }>;
  };
  decisions: {
    sample: { users: string[]; resources: string[]; checks: number; truncated: boolean };
    changed: Array<{ user: string; action: string; resource: string; tenant: string; before: Expected; after: Expected }>;
  };
}

/** A position (digits) or an ISO date-time, as the API's `as_of` takes it; null for now. */
export type AsOf = number | string | null;

const PAGE = 100;

export class AssertionsApi {
  constructor(
    private readonly api: Api,
    /** `/v2/schema/{proj}/{env}` */
    private readonly schemaPath: string,
  ) {}

  private get base(): string {
    return `${this.schemaPath}/assertions`;
  }

  /** Every assertion, page by page, in the order they were made. */
  async list(): Promise<Assertion[]> {
    const all: Assertion[] = [];
    for (let page = 1; ; page++) {
      const batch = await this.api.get<Assertion[]>(this.base, { page, per_page: PAGE });
      all.push(...batch);
      if (batch.length < PAGE) return all;
    }
  }

  async create(input: AssertionInput): Promise<Assertion> {
    return (await this.api.post<Assertion>(this.base, input)).data;
  }

  async update(id: string, input: AssertionInput): Promise<Assertion> {
    return (await this.api.request<Assertion>('PATCH', `${this.base}/${encodeURIComponent(id)}`, { body: input })).data;
  }

  async remove(id: string): Promise<void> {
    await this.api.delete(`${this.base}/${encodeURIComponent(id)}`);
  }

  async run(asOf: AsOf): Promise<RunReport> {
    return (await this.api.post<RunReport>(`${this.base}/run`, asOf === null ? {} : { as_of: asOf })).data;
  }

  /** The edits made on a scratch copy, never on the environment: what they would change. */
  async dryRun(edits: Edit[], sample: { users: number; resources: number }): Promise<DryRunReport> {
    return (await this.api.post<DryRunReport>(`${this.base}/dry_run`, { edits, sample })).data;
  }

  async exportFile(): Promise<AssertionsFile> {
    return this.api.get<AssertionsFile>(`${this.base}/export`);
  }

  async importFile(file: unknown, mode: ImportMode): Promise<ImportAnswer> {
    return (await this.api.request<ImportAnswer>('PUT', `${this.base}/import`, { query: { mode }, body: file })).data;
  }
}

/**
 * The `as_of` typed in: empty is now, digits a log position, anything else must
 * be an ISO date-time with its offset (`2026-12-01T09:00:00Z`), as the API takes it.
 */
export function parseAsOf(text: string): AsOf {
  const t = text.trim();
  if (t === '') return null;
  if (/^\d+$/.test(t)) return Number(t);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(t) || Number.isNaN(Date.parse(t)))
    throw new Error(`'${t}' is neither a log position nor an ISO date-time with an offset (2026-12-01T09:00:00Z)`);
  return t;
}

/** `type:key` or `type` as the Check page takes a resource. */
export function resourceText(r: Assertion['resource']): string {
  return r.key === null ? r.type : `${r.type}:${r.key}`;
}

const METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** The edits typed in: a JSON array of `{method, path, body?}`; what is not one is refused by name, not sent. */
export function parseEdits(text: string): Edit[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('the edits are not JSON: a JSON array of {"method", "path", "body"} is expected');
  }
  if (!Array.isArray(value) || value.length === 0) throw new Error('the edits are a non-empty JSON array of {"method", "path", "body"}');
  return value.map((e: unknown, i) => {
    const edit = e as Partial<Edit> | null;
    if (!edit || typeof edit !== 'object' || typeof edit.path !== 'string' || !METHODS.includes(String(edit.method)))
      throw new Error(`edit ${i + 1}: {"method": POST|PUT|PATCH|DELETE, "path": "/v2/schema/…", "body"?: …} is expected`);
    return edit as Edit;
  });
}
