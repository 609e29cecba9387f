import { sql, type Kysely } from 'kysely';

// Crawls (POST /v1/crawl) and their frontier. The frontier lives here rather than in Redis so
// that a crawl survives the loss of any process: the driver that holds a crawl's lease works
// through crawl_pages, and another worker takes the lease over when it lapses.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('crawls')
    .addColumn('id', 'varchar(48)', (c) => c.primaryKey())
    .addColumn('account_id', 'varchar(32)')
    .addColumn('principal_id', 'varchar(64)')
    .addColumn('mode', 'varchar(8)', (c) => c.notNull())
    .addColumn('request_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    // The validated request (seeds, limits, patterns), JSON.
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('max_pages', 'integer', (c) => c.unsigned().notNull())
    .addColumn('pages_admitted', 'integer', (c) => c.unsigned().notNull().defaultTo(0))
    .addColumn('robots_skipped', 'integer', (c) => c.unsigned().notNull().defaultTo(0))
    .addColumn('limit_reached', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('seeded', 'boolean', (c) => c.notNull().defaultTo(false))
    // The driver's lease: the epoch fences drivers of earlier generations out.
    .addColumn('lease_epoch', 'integer', (c) => c.unsigned().notNull().defaultTo(0))
    .addColumn('lease_owner', 'varchar(40)')
    .addColumn('lease_until', sql`datetime(3)`)
    .addColumn('stopped_reason', 'varchar(32)')
    .addColumn('failure_code', 'varchar(64)')
    .addColumn('failure_message', 'varchar(1024)')
    .addColumn('created_at', sql`datetime(3)`, (c) => c.notNull())
    .addColumn('started_at', sql`datetime(3)`)
    .addColumn('finished_at', sql`datetime(3)`)
    .addColumn('updated_at', sql`datetime(3)`, (c) => c.notNull())
    .modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`)
    .execute();
  // The reconciler's scans: unfinished crawls whose lease has lapsed, finished ones past retention.
  await db.schema.createIndex('crawls_state_lease').on('crawls').columns(['state', 'lease_until']).execute();
  await db.schema.createIndex('crawls_finished').on('crawls').column('finished_at').execute();

  await db.schema
    .createTable('crawl_pages')
    .addColumn('id', 'bigint', (c) => c.unsigned().autoIncrement().primaryKey())
    .addColumn('crawl_id', 'varchar(48)', (c) => c.notNull())
    .addColumn('url', 'varchar(2048)', (c) => c.notNull())
    .addColumn('url_hash', 'char(64)', (c) => c.notNull())
    // host[:port] of the URL: politeness and the driver's lanes are per host.
    .addColumn('host', 'varchar(262)', (c) => c.notNull())
    .addColumn('depth', 'smallint', (c) => c.unsigned().notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'smallint', (c) => c.unsigned().notNull().defaultTo(0))
    .addColumn('lease_owner', 'varchar(40)')
    .addColumn('final_url', 'varchar(2048)')
    .addColumn('http_status', 'smallint', (c) => c.unsigned())
    .addColumn('index_status', 'varchar(16)')
    .addColumn('error_code', 'varchar(64)')
    .addColumn('reason', 'varchar(512)')
    .addColumn('finished_at', sql`datetime(3)`)
    .modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`)
    .execute();
  // A URL enters a crawl once, so it is fetched at most once.
  await db.schema.createIndex('crawl_pages_url').unique().on('crawl_pages').columns(['crawl_id', 'url_hash']).execute();
  // Next page of a host, hosts with work, counts by state.
  await db.schema.createIndex('crawl_pages_frontier').on('crawl_pages').columns(['crawl_id', 'state', 'host', 'depth', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('crawl_pages').execute();
  await db.schema.dropTable('crawls').execute();
}
