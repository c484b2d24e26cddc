import postgres from 'postgres';

/**
 * A database of its own for a test file, on the server POSTGRES_URL names (scripts/postgres.sh
 * starts a throwaway one): created empty, dropped afterwards, so tests never see each other's
 * events or another run's.
 */
export interface TestDatabase {
  /** POSTGRES_URL with the database replaced by this one's. */
  url: string;
  drop(): Promise<void>;
}

let counter = 0;

export async function createTestDatabase(serverUrl: string, prefix = 'rebac_test'): Promise<TestDatabase> {
  const name = `${prefix}_${process.pid}_${Date.now()}_${++counter}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  return {
    url: withDatabase(serverUrl, name),
    async drop() {
      const sql = postgres(serverUrl, { max: 1, onnotice: () => undefined });
      try {
        await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await sql.end({ timeout: 5 });
      }
    },
  };
}

/** A postgres:// URI naming another database (its hosts, user and parameters kept). */
export function withDatabase(serverUrl: string, database: string): string {
  const schemeEnd = serverUrl.indexOf('://') + 3;
  const rest = serverUrl.slice(schemeEnd);
  const authorityEnd = rest.search(/[/?]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  const after = authorityEnd < 0 ? '' : rest.slice(authorityEnd);
  const query = after.includes('?') ? after.slice(after.indexOf('?')) : '';
  return `${serverUrl.slice(0, schemeEnd)}${authority}/${database}${query}`;
}

/** A postgres:// URI with other hosts (`host:port,host:port`), its user, database and parameters kept. */
export function withHosts(url: string, hosts: string): string {
  const schemeEnd = url.indexOf('://') + 3;
  const rest = url.slice(schemeEnd);
  const authorityEnd = rest.search(/[/?]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  const user = authority.includes('@') ? authority.slice(0, authority.lastIndexOf('@') + 1) : '';
  return `${url.slice(0, schemeEnd)}${user}${hosts}${authorityEnd < 0 ? '' : rest.slice(authorityEnd)}`;
}
