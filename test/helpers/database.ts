import { sql } from 'kysely';
import { openStorage, type Storage } from '../../src/storage/connection.js';

/** The URL of database `name` on the server of `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.href;
}

/** An empty database `name` on the server of `serverUrl` (dropped first if it exists); returns its URL. */
export async function createDatabase(serverUrl: string, name: string): Promise<string> {
  await asAdmin(serverUrl, async (admin) => {
    await sql`DROP DATABASE IF EXISTS ${sql.id(name)}`.execute(admin.db);
    await sql`CREATE DATABASE ${sql.id(name)}`.execute(admin.db);
  });
  return databaseUrl(serverUrl, name);
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await asAdmin(serverUrl, async (admin) => {
    await sql`DROP DATABASE IF EXISTS ${sql.id(name)}`.execute(admin.db);
  });
}

/** Drops every database whose name starts with `prefix`. */
export async function dropDatabases(serverUrl: string, prefix: string): Promise<void> {
  await asAdmin(serverUrl, async (admin) => {
    const { rows } = await sql<{ name: string }>`SELECT schema_name AS name FROM information_schema.schemata WHERE schema_name LIKE ${`${prefix}%`}`.execute(admin.db);
    for (const { name } of rows) await sql`DROP DATABASE IF EXISTS ${sql.id(name)}`.execute(admin.db);
  });
}

async function asAdmin(serverUrl: string, run: (admin: Storage) => Promise<void>): Promise<void> {
  const admin = openStorage(serverUrl, 1);
  try {
    await run(admin);
  } finally {
    await admin.close();
  }
}
