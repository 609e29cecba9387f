import { expect } from 'chai';
import { sql } from 'kysely';
import { openStorage, type Storage } from '../src/storage/connection.js';
import { dropFreshDatabase, freshDatabase } from './helpers/run-scope.js';
import { migrateDown, migrateToLatest } from '../src/storage/migrate.js';
import { autoincLockModeProblem, checkServerRequirements } from '../src/storage/server-requirements.js';
import { decodeIdSet, decodePostings } from '../src/index/postings-codec.js';

const BASE = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
const DATABASE = 'sev_migrations_test';
const ALL_TABLES = [
  'accounts', 'alert_evaluations', 'alert_events', 'alert_state', 'alerts', 'api_key_secrets', 'api_keys', 'audit_error_facets_daily', 'audit_error_hours_daily', 'audit_errors_hourly', 'audit_hourly', 'audit_ips_daily', 'audit_ips_deployment_daily', 'audit_ips_hourly', 'audit_totals_daily', 'audit_totals_hourly', 'crawl_pages', 'crawls', 'dashboards', 'extractions', 'index_documents', 'index_passages', 'index_segment_postings', 'index_segments', 'index_stats', 'index_terms', 'key_usage_daily', 'notification_deliveries', 'request_log', 'service_settings', 'sso_configs', 'team_invitations', 'team_members', 'teams', 'usage_monthly',
];

async function tables(storage: Storage): Promise<string[]> {
  const result = await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()`.execute(storage.db);
  return result.rows.map((r) => r.name).filter((n) => !n.startsWith('schema_migrations')).sort();
}

describe('migrations', () => {
  let storage: Storage;
  before(async () => {
    storage = openStorage(await freshDatabase(DATABASE), 2);
  });
  after(async () => {
    await storage.close();
    await dropFreshDatabase(DATABASE);
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

  it('runs a migration named before the newest one the database ran (branches merged in any order)', async () => {
    await migrateToLatest(storage.db);
    // As if the notification deliveries had landed from their branch after later-named migrations
    // had run (teams' 20261125T1400 was merged after 20261126T1000): undone and forgotten.
    const name = '20261125T1200-notification-deliveries';
    const deliveries = await import('../src/storage/migrations/20261125T1200-notification-deliveries.js');
    await deliveries.down(storage.db as never);
    await sql`DELETE FROM schema_migrations WHERE name = ${name}`.execute(storage.db);
    expect(await tables(storage)).not.to.include('notification_deliveries');
    expect(await migrateToLatest(storage.db)).to.deep.equal([name]);
    expect(await tables(storage)).to.deep.equal(ALL_TABLES);
  });

  it('migrates once when several processes start at the same time', async () => {
    for (let i = 0; i < 3; i++) await migrateDown(storage.db);
    const results = await Promise.all([migrateToLatest(storage.db), migrateToLatest(storage.db), migrateToLatest(storage.db)]);
    expect(results.flat().length).to.equal(3);
    expect(await tables(storage)).to.deep.equal(ALL_TABLES);
  });
});

describe('migration to index segments', () => {
  const DB = 'sev_segments_migration_test';
  let storage: Storage;
  before(async () => {
    storage = openStorage(await freshDatabase(DB), 2);
  });
  after(async () => {
    await storage.close();
    await dropFreshDatabase(DB);
  });

  it('turns an index of posting rows into a segment that answers the same query', async () => {
    await migrateToLatest(storage.db);
    while (!(await sql<{ n: number }>`SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'index_postings'`.execute(storage.db)).rows[0]!.n) {
      await migrateDown(storage.db);
    }
    // Yesterday's layout: one row per posting. Two passages, "otter" in both, "kelp" in the second.
    await sql`INSERT INTO index_stats (mode, passages, total_length, reference_avgdl) VALUES ('live', 2, 7, 3.5)`.execute(storage.db);
    await sql`INSERT INTO index_documents (id, mode, url, url_hash, domain, domain_reversed, fetched_at, content_hash, sim0, sim1, sim2, sim3, passage_count)
      VALUES (1, 'live', 'https://a.test/1', SHA2('https://a.test/1', 256), 'a.test', 'test.a.', NOW(), 'x', 0, 0, 0, 0, 2)`.execute(storage.db);
    await sql`INSERT INTO index_passages (id, document_id, position, length, text) VALUES (10, 1, 0, 3, 'Otters float.'), (11, 1, 1, 4, 'Otters eat kelp.')`.execute(storage.db);
    await sql`INSERT INTO index_terms (id, mode, term, df) VALUES (100, 'live', 'otter', 2), (101, 'live', 'kelp', 1)`.execute(storage.db);
    await sql`INSERT INTO index_postings (term_id, impact, passage_id, tf, length) VALUES (100, 9000, 10, 1, 3), (100, 8000, 11, 1, 4), (101, 9500, 11, 2, 4)`.execute(storage.db);

    await migrateToLatest(storage.db);
    const segments = await storage.db.selectFrom('index_segments').select(['mode', 'state', 'postings', 'first_passage', 'last_passage']).execute();
    expect(segments).to.deep.equal([{ mode: 'live', state: 'active', postings: 3, first_passage: 10, last_passage: 11 }]);
    const chunks = await storage.db.selectFrom('index_segment_postings').select(['term_id', 'data']).orderBy('term_id').execute();
    expect(chunks.map((c) => [c.term_id, decodePostings(c.data)])).to.deep.equal([
      [100, { passages: Uint32Array.from([10, 11]), tfs: Uint32Array.from([1, 1]), lengths: Uint32Array.from([3, 4]) }],
      [101, { passages: Uint32Array.from([11]), tfs: Uint32Array.from([2]), lengths: Uint32Array.from([4]) }],
    ]);
    const passages = await storage.db.selectFrom('index_passages').select(['id', 'terms']).orderBy('id').execute();
    expect(passages.map((p) => [p.id, decodeIdSet(p.terms)])).to.deep.equal([[10, [100]], [11, [100, 101]]]);
    // The later document-lengths migration fills in what whole-document ranking reads.
    expect(await storage.db.selectFrom('index_documents').select(['id', 'length']).execute()).to.deep.equal([{ id: 1, length: 7 }]);
    expect(await storage.db.selectFrom('index_stats').select(['documents', 'passages', 'total_length']).execute()).to.deep.equal([{ documents: 1, passages: 2, total_length: 7 }]);
  });
});

describe('database server requirements', () => {
  it('accepts the server the tests run on', async () => {
    const storage = openStorage(BASE, 1);
    try {
      await checkServerRequirements(storage.db);
    } finally {
      await storage.close();
    }
  });

  it('refuses interleaved auto-increment locking, which would file passages under the wrong documents', () => {
    expect(autoincLockModeProblem(0)).to.equal(null);
    expect(autoincLockModeProblem(1)).to.equal(null);
    expect(autoincLockModeProblem(2)).to.include('innodb_autoinc_lock_mode=2').and.to.include('Set innodb_autoinc_lock_mode=1');
  });
});
