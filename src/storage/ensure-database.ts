import { createConnection } from 'mysql2/promise';
import { StartupError } from '../errors/startup-error.js';
import { connectionOptions } from './connection.js';

/** mysql2 error codes a start-up can meet before the service has a database to work in. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);
const NOT_ALLOWED = new Set(['ER_DBACCESS_DENIED_ERROR', 'ER_SPECIFIC_ACCESS_DENIED_ERROR', 'ER_ACCESS_DENIED_ERROR']);

/**
 * Makes sure the database DATABASE_URL names exists, creating it on a server that does not have
 * it yet (when the user may), so that a first `npm start` needs nothing but a running MySQL or
 * MariaDB. Whatever stops it becomes a StartupError that says what to do. Resolves true when it
 * created the database.
 */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const options = connectionOptions(databaseUrl);
  const where = `${options.host}:${options.port}`;
  let connection;
  try {
    connection = await createConnection({ ...options, database: undefined });
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (UNREACHABLE.has(code)) {
      throw new StartupError(`Cannot reach MySQL at ${where} (${code}): start the database server, or point DATABASE_URL at one.`, { cause: error });
    }
    if (code === 'ER_ACCESS_DENIED_ERROR') {
      throw new StartupError(`MySQL at ${where} refused user "${options.user}": check the user and password in DATABASE_URL.`, { cause: error });
    }
    throw error;
  }
  try {
    const [rows] = await connection.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = ?', [options.database]);
    if ((rows as unknown[]).length > 0) return false;
    try {
      await connection.query(`CREATE DATABASE IF NOT EXISTS \`${options.database.replaceAll('`', '``')}\``);
    } catch (error) {
      if (!NOT_ALLOWED.has((error as { code?: string }).code ?? '')) throw error;
      throw new StartupError(
        `The database "${options.database}" does not exist on ${where}, and user "${options.user}" may not create it: `
        + `run CREATE DATABASE \`${options.database}\`; as an administrator, or point DATABASE_URL at an existing database.`,
        { cause: error },
      );
    }
    return true;
  } finally {
    await connection.end();
  }
}
