import { sql, type Kysely } from 'kysely';

// Audit entries now reach MySQL through a Redis stream, at least once: `entry_id` (unique, made
// when the request was answered) lets a retried batch insert nothing twice. Usage, the audit
// summary and error analytics read hourly rollups written in the same transaction as the rows,
// so they never scan request_log. Everything below is frozen: later changes get a migration.
const LATENCY_BUCKETS = 14;

export async function up(db: Kysely<unknown>): Promise<void> {
  // The principal index served no query; every index costs each of the many rows written.
  await sql`ALTER TABLE request_log
    DROP INDEX request_log_principal_time,
    ADD COLUMN entry_id VARCHAR(40) CHARACTER SET ascii NULL COMMENT 'idempotency key of the captured entry',
    ADD COLUMN failed BOOLEAN AS (status >= 400) PERSISTENT,
    ADD UNIQUE INDEX request_log_entry (entry_id),
    ADD INDEX request_log_account_endpoint_time (account_id, mode, endpoint, occurred_at),
    ADD INDEX request_log_account_failed_time (account_id, mode, failed, occurred_at)`.execute(db);

  const buckets = Array.from({ length: LATENCY_BUCKETS }, (_, i) => `lat_${i} INT UNSIGNED NOT NULL DEFAULT 0`).join(',\n    ');
  await sql.raw(`CREATE TABLE audit_hourly (
    account_id VARCHAR(32) NOT NULL,
    mode VARCHAR(8) NOT NULL,
    hour DATETIME NOT NULL,
    key_id VARCHAR(64) NOT NULL,
    endpoint VARCHAR(128) NOT NULL,
    requests BIGINT UNSIGNED NOT NULL,
    errors BIGINT UNSIGNED NOT NULL,
    cache_hits BIGINT UNSIGNED NOT NULL,
    request_bytes BIGINT UNSIGNED NOT NULL,
    response_bytes BIGINT UNSIGNED NOT NULL,
    latency_ms_sum BIGINT UNSIGNED NOT NULL,
    ${buckets},
    PRIMARY KEY (account_id, mode, hour, key_id, endpoint),
    INDEX audit_hourly_hour (hour)
  ) ENGINE=InnoDB DEFAULT CHARSET=ascii`).execute(db);

  await sql`CREATE TABLE audit_errors_hourly (
    account_id VARCHAR(32) NOT NULL,
    mode VARCHAR(8) NOT NULL,
    hour DATETIME NOT NULL,
    endpoint VARCHAR(128) NOT NULL,
    error_code VARCHAR(40) NOT NULL,
    parameter VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL COMMENT 'the parameter the error names, or empty',
    agent VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL COMMENT 'product token of the user agent, or empty',
    errors BIGINT UNSIGNED NOT NULL,
    latency_ms_sum BIGINT UNSIGNED NOT NULL,
    PRIMARY KEY (account_id, mode, hour, endpoint, error_code, parameter, agent),
    INDEX audit_errors_hourly_hour (hour)
  ) ENGINE=InnoDB DEFAULT CHARSET=ascii`.execute(db);

  for (const [table, column, type] of [['audit_ips_hourly', 'hour', 'DATETIME'], ['audit_ips_daily', 'day', 'DATE']] as const) {
    await sql.raw(`CREATE TABLE ${table} (
      account_id VARCHAR(32) NOT NULL,
      mode VARCHAR(8) NOT NULL,
      ${column} ${type} NOT NULL,
      endpoint VARCHAR(128) NOT NULL,
      failed BOOLEAN NOT NULL,
      ip VARCHAR(45) NOT NULL,
      PRIMARY KEY (account_id, mode, ${column}, endpoint, failed, ip),
      INDEX ${table}_time (${column})
    ) ENGINE=InnoDB DEFAULT CHARSET=ascii`).execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['audit_ips_daily', 'audit_ips_hourly', 'audit_errors_hourly', 'audit_hourly']) {
    await sql.raw(`DROP TABLE ${table}`).execute(db);
  }
  await sql`ALTER TABLE request_log
    DROP INDEX request_log_account_failed_time,
    DROP INDEX request_log_account_endpoint_time,
    DROP INDEX request_log_entry,
    DROP COLUMN failed,
    DROP COLUMN entry_id,
    ADD INDEX request_log_principal_time (principal_id, occurred_at)`.execute(db);
}
