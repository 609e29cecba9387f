import { sql, type Kysely } from 'kysely';

// A crawl's lease epoch grows with every new driver, and a crawl restarted too often is failed
// as broken. Workers that stop gracefully (deploys, scale-in) hand their crawls over, which
// says nothing about the crawl: counted apart, those hand-overs no longer use up its restarts.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE crawls ADD COLUMN handbacks INT UNSIGNED NOT NULL DEFAULT 0 COMMENT 'epochs that ended with a graceful hand-over, not a failure'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE crawls DROP COLUMN handbacks`.execute(db);
}
