import { sql, type Kysely } from 'kysely';

// The durable side of usage counting: Redis enforces limits, these tables make the counts
// survive a restart of Redis, and request_log learns whose namespace (account, mode) a row is in.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('usage_monthly')
    .addColumn('account_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('mode', 'varchar(8)', (c) => c.notNull())
    .addColumn('period', 'char(7)', (c) => c.notNull())
    .addColumn('requests', 'bigint', (c) => c.unsigned().notNull())
    .addPrimaryKeyConstraint('usage_monthly_pk', ['account_id', 'mode', 'period'])
    .modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=ascii`)
    .execute();

  await db.schema
    .createTable('key_usage_daily')
    .addColumn('key_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('requests', 'bigint', (c) => c.unsigned().notNull())
    .addPrimaryKeyConstraint('key_usage_daily_pk', ['key_id', 'day'])
    .modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=ascii`)
    .execute();

  await db.schema
    .alterTable('request_log')
    .addColumn('account_id', 'varchar(32)')
    .addColumn('mode', 'varchar(8)')
    .execute();
  await db.schema.createIndex('request_log_account_time').on('request_log').columns(['account_id', 'mode', 'occurred_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('request_log_account_time').on('request_log').execute();
  await db.schema.alterTable('request_log').dropColumn('account_id').dropColumn('mode').execute();
  await db.schema.dropTable('key_usage_daily').execute();
  await db.schema.dropTable('usage_monthly').execute();
}
