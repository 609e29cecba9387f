import { sql } from 'kysely';
import { openStorage } from '../../src/storage/connection.js';

const BASE = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';

/**
 * An empty database of its own on the test server, for a suite whose answers depend on
 * everything the index holds (ranking, "nothing found"): documents other suites index in the
 * shared `test` database would otherwise take part. Returns its DATABASE_URL.
 */
export async function freshDatabase(name: string): Promise<string> {
  const admin = openStorage(BASE, 1);
  try {
    await sql`DROP DATABASE IF EXISTS ${sql.raw(name)}`.execute(admin.db);
    await sql`CREATE DATABASE ${sql.raw(name)}`.execute(admin.db);
  } finally {
    await admin.close();
  }
  const url = new URL(BASE);
  url.pathname = `/${name}`;
  return url.href;
}
