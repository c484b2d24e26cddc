import type Database from 'better-sqlite3';

// What the domain stores' SQL adapters run their statements through: the document store's connections (docs/read-stores.md).

/**
 * What the store runs its statements through: a SqliteDocumentStore (reads on its reading
 * connection, writes once no batch transaction is open) or its writer view (both on the writing
 * connection, inside the runner's batch transaction when one is open).
 */
export interface SqliteStatements {
  statement(sql: string, write?: boolean): Database.Statement;
  writing<R>(write: () => R): Promise<R>;
}

/**
 * What the store runs its statements through: a PostgresDocumentStore (the pool; writes once no
 * batch transaction is open) or its writer view (the batch transaction's connection while one is open).
 */
export interface PostgresStatements {
  readonly schema: string;
  run(sql: string, parameters: unknown[], write?: boolean): Promise<unknown[][]>;
}
