import { sql, type Kysely } from 'kysely';

// Alert notifications (src/notify): one row per event and channel, written in the same
// transaction as the alert's transition (an outbox), then handed to the notify queue. The row is
// the delivery log (status, attempts, last error) and, once every try failed, the dead letter.
// Frozen once shipped: later changes get a migration of their own.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('notification_deliveries')
    .addColumn('id', sql`varchar(40) CHARACTER SET ascii`, (c) => c.primaryKey())
    .addColumn('alert_id', 'varchar(64)', (c) => c.notNull())
    // null: a deployment-wide alert of the master key.
    .addColumn('account_id', 'varchar(32)')
    .addColumn('mode', 'varchar(8)', (c) => c.notNull())
    .addColumn('event_id', sql`varchar(64) CHARACTER SET ascii`, (c) => c.notNull())
    .addColumn('event', 'varchar(32)', (c) => c.notNull())
    .addColumn('channel', sql`varchar(16) CHARACTER SET ascii`, (c) => c.notNull())
    // Where it goes, for the log: the URL, or the addresses comma-joined.
    .addColumn('destination', 'varchar(2048)', (c) => c.notNull())
    // The channel's settings when the event happened (signing secret and template included), JSON.
    .addColumn('target', sql`mediumtext`, (c) => c.notNull())
    // The Notification, JSON: every retry sends the same content.
    .addColumn('notification', sql`mediumtext`, (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'smallint', (c) => c.unsigned().notNull().defaultTo(0))
    .addColumn('last_error', 'varchar(1024)')
    .addColumn('last_status_code', 'smallint', (c) => c.unsigned())
    // null until the row was handed to the queue; the relay re-sends rows left null by a process that died.
    .addColumn('enqueued_at', sql`datetime(3)`)
    .addColumn('created_at', sql`datetime(3)`, (c) => c.notNull())
    .addColumn('updated_at', sql`datetime(3)`, (c) => c.notNull())
    .addColumn('delivered_at', sql`datetime(3)`)
    .modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`)
    .execute();
  // An event notifies each channel once, however often it is recorded.
  await db.schema.createIndex('notification_deliveries_event').unique().on('notification_deliveries').columns(['event_id', 'channel']).execute();
  // The delivery log of an alert, newest first.
  await db.schema.createIndex('notification_deliveries_alert').on('notification_deliveries').columns(['alert_id', 'created_at']).execute();
  // The relay's scan: rows never handed to the queue.
  // Retention: deliveries older than AUDIT_RETENTION_DAYS go with the audit log.
  await db.schema.createIndex('notification_deliveries_created').on('notification_deliveries').column('created_at').execute();
  await db.schema.createIndex('notification_deliveries_unqueued').on('notification_deliveries').columns(['enqueued_at', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('notification_deliveries').execute();
}
