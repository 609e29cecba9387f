import { expect } from 'chai';
import { sql } from 'kysely';
import { openStorage, type Storage } from '../src/storage/connection.js';
import { migrateDown, migrateToLatest } from '../src/storage/migrate.js';

const BASE = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
const DATABASE = 'sev_migrations_test';
const ALL_TABLES = ['accounts', 'api_key_secrets', 'api_keys', 'extractions', 'index_documents', 'index_passages', 'index_postings', 'index_stats', 'index_terms', 'key_usage_daily', 'request_log', 'service_settings', 'usage_monthly'];

async function tables(storage: Storage): Promise<string[]> {
  const result = await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ${DATABASE}`.execute(storage.db);
  return result.rows.map((r) => r.name).filter((n) => !n.startsWith('schema_migrations')).sort();
}

describe('migrations', () => {
  let admin: Storage;
  let storage: Storage;
  before(async () => {
    admin = openStorage(BASE, 1);
    await sql`DROP DATABASE IF EXISTS ${sql.raw(DATABASE)}`.execute(admin.db);
    await sql`CREATE DATABASE ${sql.raw(DATABASE)}`.execute(admin.db);
    const url = new URL(BASE);
    url.pathname = `/${DATABASE}`;
    storage = openStorage(url.href, 2);
  });
  after(async () => {
    await storage.close();
    await sql`DROP DATABASE IF EXISTS ${sql.raw(DATABASE)}`.execute(admin.db);
    await admin.close();
  });

  it('creates every table on an empty database, undoes each step, and applies them again', async () => {
    const applied = await migrateToLatest(storage.db);
    expect(applied.length).to.be.at.least(3);
    expect(await tables(storage)).to.deep.equal(ALL_TABLES);
    expect(await migrateToLatest(storage.db)).to.deep.equal([]);

    for (let i = 0; i < applied.length; i++) await migrateDown(storage.db);
    expect(await tables(storage)).to.deep.equal([]);

    expect(await migrateToLatest(storage.db)).to.deep.equal(applied);
  });

  it('migrates once when several processes start at the same time', async () => {
    for (let i = 0; i < 3; i++) await migrateDown(storage.db);
    const results = await Promise.all([migrateToLatest(storage.db), migrateToLatest(storage.db), migrateToLatest(storage.db)]);
    expect(results.flat().length).to.equal(3);
    expect(await tables(storage)).to.deep.equal(ALL_TABLES);
  });
});
