import { sql } from 'kysely';
import { openStorage, type Storage } from '../../src/storage/connection.js';

const BASE = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';

/**
 * An empty database of its own on the test server, for a suite whose answers depend on
 * everything the index holds (ranking, "nothing found"): documents other suites index in the
 * shared `test` database would otherwise take part. Returns its DATABASE_URL.
 */
export async function freshDatabase(name: string): Promise<string> {
  await dropDatabase(name);
  await asAdmin((admin) => sql`CREATE DATABASE ${sql.raw(name)}`.execute(admin.db));
  const url = new URL(BASE);
  url.pathname = `/${name}`;
  return url.href;
}

/** Removes a database freshDatabase made, if it is there. */
export async function dropDatabase(name: string): Promise<void> {
  await asAdmin((admin) => sql`DROP DATABASE IF EXISTS ${sql.raw(name)}`.execute(admin.db));
}

async function asAdmin(run: (admin: Storage) => Promise<unknown>): Promise<void> {
  const admin = openStorage(BASE, 1);
  try {
    await run(admin);
  } finally {
    await admin.close();
  }
}
