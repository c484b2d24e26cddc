/**
 * POSTGRES_URL, read as libpq reads a connection string, into what the `postgres` client takes.
 *
 * Both of libpq's forms are accepted:
 * - a URI, `postgres://user:pass@host1:5432,host2:5433/db?target_session_attrs=read-write`
 *   (several hosts, tried in order; the client parses it itself);
 * - keywords, `host=host1,host2 port=5432,5433 dbname=db user=u target_session_attrs=read-write`
 *   (values may be single-quoted, with `\'` and `\\` inside).
 *
 * A keyword this adapter does not know is refused rather than dropped: a connection string
 * whose `sslmode` or `target_session_attrs` were ignored would connect, to the wrong place.
 */
import postgres, { type Sql } from 'postgres';

/** libpq's target_session_attrs values; `any` (libpq's default) is the client's default too. */
const SESSION_ATTRS = new Set(['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby']);
const SSL_MODES = new Set(['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full']);

/** Keywords of the keyword form, and of a URI's query, that this adapter passes on. */
const KEYWORDS = new Set([
  'host',
  'port',
  'dbname',
  'user',
  'password',
  'target_session_attrs',
  'sslmode',
  'application_name',
  'connect_timeout',
  'options',
]);

export interface PostgresTarget {
  /** What to hand the client: a URI it parses, plus options that override it. */
  url: string | undefined;
  options: {
    host?: string[];
    port?: number[];
    database?: string;
    username?: string;
    password?: string;
    ssl?: string | boolean | { checkServerIdentity: () => undefined };
    target_session_attrs?: 'read-write' | 'read-only' | 'primary' | 'standby' | 'prefer-standby';
    connect_timeout?: number;
    connection?: Record<string, string>;
  };
  /** The hosts and database, without the password: for logs and errors. */
  description: string;
}

/** Parses a POSTGRES_URL; throws an Error that says what is wrong with it. */
export function parsePostgresUrl(text: string): PostgresTarget {
  const trimmed = text.trim();
  if (trimmed === '') throw new Error('POSTGRES_URL is empty');
  if (/^postgres(ql)?:\/\//i.test(trimmed)) return fromUri(trimmed);
  if (/^[a-z_]+\s*=/i.test(trimmed)) return fromKeywords(trimmed);
  throw new Error('POSTGRES_URL must be a postgres:// (or postgresql://) URI or libpq keywords (host=… dbname=…)');
}

function fromUri(uri: string): PostgresTarget {
  const afterScheme = uri.slice(uri.indexOf('://') + 3);
  const authority = afterScheme.split(/[/?]/)[0]!;
  const hostList = authority.slice(authority.lastIndexOf('@') + 1);
  const pathAndQuery = afterScheme.slice(authority.length);
  const queryStart = pathAndQuery.indexOf('?');
  const query = new URLSearchParams(queryStart >= 0 ? pathAndQuery.slice(queryStart + 1) : '');
  const database = decodeURIComponent((queryStart >= 0 ? pathAndQuery.slice(0, queryStart) : pathAndQuery).replace(/^\//, ''));
  for (const key of query.keys()) {
    if (!KEYWORDS.has(key) || key === 'host' || key === 'port' || key === 'dbname')
      throw new Error(`POSTGRES_URL: the parameter '${key}' is not one this service takes (${[...KEYWORDS].join(', ')})`);
  }
  const hosts = hostList === '' ? [] : hostList.split(',');
  for (const host of hosts) {
    const port = host.startsWith('[') ? host.slice(host.indexOf(']') + 1).replace(/^:/, '') : host.split(':')[1];
    if (port !== undefined && port !== '' && !/^\d+$/.test(port)) throw new Error(`POSTGRES_URL: the port of '${host}' is not a number`);
  }
  const options: PostgresTarget['options'] = {};
  // The client knows neither `any` (its default) nor libpq's spelling of a few sslmodes: they are given as options, which win over the URI.
  const attrs = query.get('target_session_attrs');
  if (attrs !== null) options.target_session_attrs = sessionAttrs(attrs);
  const sslmode = query.get('sslmode');
  if (sslmode !== null) options.ssl = sslMode(sslmode);
  const timeout = query.get('connect_timeout');
  if (timeout !== null) options.connect_timeout = seconds(timeout);
  for (const key of ['target_session_attrs', 'sslmode', 'connect_timeout']) query.delete(key);
  const rest = query.toString();
  const base = uri.slice(0, uri.length - pathAndQuery.length) + (queryStart >= 0 ? pathAndQuery.slice(0, queryStart) : pathAndQuery);
  return {
    url: rest ? `${base}?${rest}` : base,
    options,
    description: `${hosts.join(',') || 'localhost'}/${database}`,
  };
}

function fromKeywords(text: string): PostgresTarget {
  const values = new Map<string, string>();
  const pattern = /\s*([a-z_]+)\s*=\s*('((?:[^'\\]|\\.)*)'|[^\s']*)/giy;
  let index = 0;
  while (index < text.length) {
    pattern.lastIndex = index;
    const match = pattern.exec(text);
    if (!match) {
      if (text.slice(index).trim() === '') break;
      throw new Error(`POSTGRES_URL: cannot read '${text.slice(index).trim()}' (libpq keywords are key=value, quoted with '…')`);
    }
    const key = match[1]!.toLowerCase();
    if (!KEYWORDS.has(key))
      throw new Error(`POSTGRES_URL: the keyword '${key}' is not one this service takes (${[...KEYWORDS].join(', ')})`);
    const value = match[3] !== undefined ? match[3].replace(/\\(.)/g, '$1') : match[2]!;
    values.set(key, value);
    index = pattern.lastIndex;
  }
  const hosts = (values.get('host') ?? '').split(',').filter(Boolean);
  const ports = (values.get('port') ?? '').split(',').filter(Boolean);
  for (const port of ports) if (!/^\d+$/.test(port)) throw new Error(`POSTGRES_URL: the port '${port}' is not a number`);
  if (ports.length > 1 && ports.length !== Math.max(hosts.length, 1))
    throw new Error(`POSTGRES_URL: ${ports.length} ports for ${hosts.length} hosts (give one port, or one per host)`);
  const options: PostgresTarget['options'] = {};
  if (hosts.length > 0) {
    options.host = hosts;
    options.port = hosts.map((_, i) => Number(ports[ports.length > 1 ? i : 0] ?? 5432));
  } else if (ports.length > 0) {
    options.port = [Number(ports[0])];
  }
  const set = <K extends keyof PostgresTarget['options']>(key: K, value: PostgresTarget['options'][K] | undefined) => {
    if (value !== undefined) options[key] = value;
  };
  set('database', values.get('dbname'));
  set('username', values.get('user'));
  set('password', values.get('password'));
  const attrs = values.get('target_session_attrs');
  if (attrs !== undefined) set('target_session_attrs', sessionAttrs(attrs));
  const sslmode = values.get('sslmode');
  if (sslmode !== undefined) options.ssl = sslMode(sslmode);
  const timeout = values.get('connect_timeout');
  if (timeout !== undefined) options.connect_timeout = seconds(timeout);
  const connection: Record<string, string> = {};
  for (const key of ['application_name', 'options']) {
    const value = values.get(key);
    if (value !== undefined) connection[key] = value;
  }
  if (Object.keys(connection).length > 0) options.connection = connection;
  return {
    url: undefined,
    options,
    description: `${options.host?.map((h, i) => `${h}:${options.port![i]}`).join(',') ?? 'localhost'}/${options.database ?? ''}`,
  };
}

/**
 * libpq's target_session_attrs as the client takes it. The client decides `read-write` and
 * `read-only` by the `default_transaction_read_only` a server reports at connection, which a hot
 * standby of PostgreSQL 14 and later reports `off` (only its transactions are read-only): it would
 * take a standby for a primary, and a pool that connected while the primary restarted would stay
 * on the standby, every write refused. So they are given as `primary` and `standby` (hot standby
 * or not, which the server reports exactly), as libpq means them for a replicated pair. What is
 * lost: a primary told to refuse writes (`default_transaction_read_only = on`) counts as
 * `read-write`, and its refusals are answered 503 like a standby's.
 */
function sessionAttrs(value: string): PostgresTarget['options']['target_session_attrs'] {
  if (!SESSION_ATTRS.has(value))
    throw new Error(`POSTGRES_URL: target_session_attrs '${value}' is not one of libpq's (${[...SESSION_ATTRS].join(', ')})`);
  if (value === 'read-write') return 'primary';
  if (value === 'read-only') return 'standby';
  return value === 'any' ? undefined : (value as PostgresTarget['options']['target_session_attrs']);
}

/**
 * libpq's sslmode as the client takes it: `disable` is no TLS; `allow` and `prefer` try TLS;
 * `require` insists on TLS without checking the certificate; `verify-full` checks it and the host
 * name (the client's default TLS); `verify-ca` checks the certificate's chain only.
 */
function sslMode(value: string): NonNullable<PostgresTarget['options']['ssl']> {
  if (!SSL_MODES.has(value)) throw new Error(`POSTGRES_URL: sslmode '${value}' is not one of libpq's (${[...SSL_MODES].join(', ')})`);
  if (value === 'disable') return false;
  if (value === 'allow') return 'prefer';
  if (value === 'verify-ca') return { checkServerIdentity: () => undefined };
  return value;
}

function seconds(value: string): number {
  if (!/^\d+$/.test(value)) throw new Error(`POSTGRES_URL: connect_timeout '${value}' is not a whole number of seconds`);
  return Number(value);
}

/** A pool of the `postgres` client with bigint columns read as numbers. */
export type PostgresPool = Sql<{ int8: number }>;

/** bigint columns as numbers: positions and versions stay below 2^53 (a log of 9e15 events). */
const INT8_AS_NUMBER = { to: 20, from: [20], serialize: (value: number) => String(value), parse: (text: string) => Number(text) };

export interface PostgresPoolOptions {
  /** Connections at most. */
  max: number;
  /** Seconds to wait for a connection when POSTGRES_URL gives none (default 5). */
  connectTimeoutSeconds?: number;
  /** How the connections show in pg_stat_activity, unless POSTGRES_URL names one. */
  applicationName: string;
  /** Session settings of every connection (run-time parameters). */
  connection?: Record<string, string>;
}

/**
 * A pool on the server(s) POSTGRES_URL names, read as libpq reads it (parsePostgresUrl): the
 * one way the event store and the read models connect, so both take the same connection strings.
 */
export function openPostgresPool(url: string, options: PostgresPoolOptions): PostgresPool {
  const target = parsePostgresUrl(url);
  const settings = {
    ...target.options,
    max: options.max,
    connect_timeout: target.options.connect_timeout ?? options.connectTimeoutSeconds ?? 5,
    onnotice: () => undefined,
    types: { int8: INT8_AS_NUMBER },
    connection: {
      application_name: options.applicationName,
      ...target.options.connection,
      ...options.connection,
    },
  };
  // The client takes host and port lists (a parsed multi-host string is one) where its typings say one of each.
  return postgres(target.url ?? '', settings as unknown as postgres.Options<{ int8: typeof INT8_AS_NUMBER }>);
}
