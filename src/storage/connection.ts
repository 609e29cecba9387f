import { createPool, format, type Pool } from 'mysql2';
import { Kysely, MysqlDialect, sql } from 'kysely';
import type { Database } from './schema.js';

export interface Storage {
  readonly db: Kysely<Database>;
  /** One round trip (SELECT 1): the database answers. */
  ping(): Promise<void>;
  /** Connections in use and the pool's ceiling, for health and metrics. */
  poolUsage(): { inUse: number; open: number; limit: number };
  close(): Promise<void>;
}

/** mysql2 keeps its connection lists private; reading them is the only way to see pool use. */
interface PoolInternals {
  _allConnections?: { length: number };
  _freeConnections?: { length: number };
}

/** Host, port, user, password and database of a mysql:// URL (config.ts has checked its form). */
export function connectionOptions(databaseUrl: string): { host: string; port: number; user: string; password: string; database: string } {
  const url = new URL(databaseUrl);
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : 3306,
    user: decodeURIComponent(url.username) || 'root',
    password: decodeURIComponent(url.password),
    database: url.pathname.replace(/^\//, '') || 'test',
  };
}

/**
 * mysql2's own formatting, except that a statement sent without parameters is sent as it is:
 * Kysely passes an empty parameter list with raw SQL, and mysql2 would still scan all of it for
 * placeholders, which for the audit writer's multi-row statements (hundreds of kilobytes of
 * literals, multi-row-insert.ts) cost more than building them.
 */
function formatQuery(query: string, values: unknown): string {
  if (Array.isArray(values) && values.length === 0) return query;
  // As mysql2 formats with this pool's options: objects not stringified, datetimes in UTC.
  return format(query, values as Parameters<typeof format>[1], false, 'Z');
}

export function openStorage(databaseUrl: string, connectionLimit: number): Storage {
  const pool: Pool = createPool({
    ...connectionOptions(databaseUrl),
    connectionLimit,
    waitForConnections: true,
    // Datetimes are stored and read as UTC whatever the server's time zone is.
    timezone: 'Z',
    dateStrings: false,
    supportBigNumbers: true,
    connectTimeout: 5000,
    enableKeepAlive: true,
    // mysql2's typings declare the formatter's result void; it is the SQL text sent.
    queryFormat: formatQuery as never,
  });
  const db = new Kysely<Database>({ dialect: new MysqlDialect({ pool }) });
  return {
    db,
    async ping() {
      await sql`SELECT 1`.execute(db);
    },
    poolUsage() {
      const internals = pool as unknown as PoolInternals;
      const open = internals._allConnections?.length ?? 0;
      const free = internals._freeConnections?.length ?? 0;
      return { inUse: open - free, open, limit: connectionLimit };
    },
    close: () => db.destroy(),
  };
}
