import { sql, type Kysely } from 'kysely';

// Monitoring reads at scale (10 million audit rows): the hourly rollups hold a row per account,
// key and endpoint, so a month of one busy account is ~50,000 rows and the whole deployment's
// ~400,000, too many to sum per request. These tables keep what the reads need, and nothing
// finer:
//  - audit_totals_hourly and audit_totals_daily: per account and mode, and for the whole
//    deployment (account '*'), rows per endpoint (key '*'), per key (endpoint '*') and the total
//    ('*', '*'), with the failed requests' latency beside the latency (the status filter), so a
//    month is ~700 rows of totals, a few hundred per endpoint or key;
//  - audit_error_facets_daily and audit_error_hours_daily: per day, for the deployment too, each
//    code's errors by endpoint, by parameter and by client product (what the analysis reads: not
//    every combination of the three), and in each hour of the day (peak times); and the
//    deployment's hourly errors in audit_errors_hourly itself, as account '*' (its schema is
//    unchanged; nothing sums it over accounts any more);
//  - audit_ips_deployment_daily: the deployment's client addresses per day with the first and
//    last time each was seen that day (exact partial days, no hourly sets), indexed so a distinct
//    count walks one entry per address (MariaDB's loose index scan), not one per row.
// Existing rows are carried over: totals and errors from the hourly rollups, addresses from the
// raw rows (their first and last times are only there). Key rows of the totals carried over
// have no failed-request latency (the hourly rollups kept none per key): NULL, never read.
const LATENCY_BUCKETS = 14;
const LATENCY = Array.from({ length: LATENCY_BUCKETS }, (_, i) => `lat_${i}`);
const HOURS = Array.from({ length: 24 }, (_, i) => `h_${i}`);

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, column, type] of [['audit_totals_hourly', 'hour', 'DATETIME'], ['audit_totals_daily', 'day', 'DATE']] as const) {
    await sql.raw(`CREATE TABLE ${table} (
      account_id VARCHAR(32) NOT NULL COMMENT 'the account, or * for the whole deployment',
      mode VARCHAR(8) NOT NULL,
      ${column} ${type} NOT NULL,
      key_id VARCHAR(64) NOT NULL COMMENT 'the key, or * on the rows of an endpoint and on totals',
      endpoint VARCHAR(128) NOT NULL COMMENT 'the endpoint, or * on the rows of a key and on totals',
      requests BIGINT UNSIGNED NOT NULL,
      errors BIGINT UNSIGNED NOT NULL,
      cache_hits BIGINT UNSIGNED NOT NULL,
      request_bytes BIGINT UNSIGNED NOT NULL,
      response_bytes BIGINT UNSIGNED NOT NULL,
      latency_ms_sum BIGINT UNSIGNED NOT NULL,
      error_latency_ms_sum BIGINT UNSIGNED NULL COMMENT 'latency of the failed requests; NULL on key rows carried over from the hourly rollups',
      ${LATENCY.map((c) => `${c} INT UNSIGNED NOT NULL DEFAULT 0`).join(',\n      ')},
      PRIMARY KEY (account_id, mode, ${column}, key_id, endpoint),
      ${column === 'hour' ? 'INDEX audit_totals_hourly_totals (account_id, mode, key_id, endpoint, hour),' : ''}
      INDEX ${table}_time (${column})
    ) ENGINE=InnoDB DEFAULT CHARSET=ascii`).execute(db);
  }

  await sql`CREATE TABLE audit_error_facets_daily (
    account_id VARCHAR(32) NOT NULL COMMENT 'the account, or * for the whole deployment',
    mode VARCHAR(8) NOT NULL,
    day DATE NOT NULL,
    error_code VARCHAR(40) NOT NULL,
    facet VARCHAR(9) NOT NULL COMMENT 'endpoint, parameter or agent',
    value VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    errors BIGINT UNSIGNED NOT NULL,
    latency_ms_sum BIGINT UNSIGNED NOT NULL,
    PRIMARY KEY (account_id, mode, day, error_code, facet, value),
    INDEX audit_error_facets_daily_time (day)
  ) ENGINE=InnoDB DEFAULT CHARSET=ascii`.execute(db);

  await sql.raw(`CREATE TABLE audit_error_hours_daily (
    account_id VARCHAR(32) NOT NULL COMMENT 'the account, or * for the whole deployment',
    mode VARCHAR(8) NOT NULL,
    day DATE NOT NULL,
    error_code VARCHAR(40) NOT NULL,
    ${HOURS.map((c) => `${c} INT UNSIGNED NOT NULL DEFAULT 0`).join(',\n    ')},
    PRIMARY KEY (account_id, mode, day, error_code),
    INDEX audit_error_hours_daily_time (day)
  ) ENGINE=InnoDB DEFAULT CHARSET=ascii`).execute(db);

  await sql`CREATE TABLE audit_ips_deployment_daily (
    mode VARCHAR(8) NOT NULL,
    day DATE NOT NULL,
    endpoint VARCHAR(128) NOT NULL,
    failed BOOLEAN NOT NULL,
    ip VARCHAR(45) NOT NULL,
    first_seen DATETIME(3) NOT NULL,
    last_seen DATETIME(3) NOT NULL,
    PRIMARY KEY (day, mode, endpoint, failed, ip),
    INDEX audit_ips_deployment_by_ip (mode, ip, day),
    INDEX audit_ips_deployment_by_failed (mode, failed, ip, day),
    INDEX audit_ips_deployment_by_endpoint (mode, endpoint, failed, ip, day)
  ) ENGINE=InnoDB DEFAULT CHARSET=ascii`.execute(db);

  await carryOver(db);
}

async function carryOver(db: Kysely<unknown>): Promise<void> {
  const measures = ['requests', 'errors', 'cache_hits', 'request_bytes', 'response_bytes', 'latency_ms_sum'];
  for (const [table, column, time] of [['audit_totals_hourly', 'hour', 'h.hour'], ['audit_totals_daily', 'day', 'DATE(h.hour)']] as const) {
    for (const account of ['h.account_id', "'*'"]) {
      // Rows of an endpoint, of a key, and the totals.
      for (const [key, endpoint] of [["'*'", 'h.endpoint'], ['h.key_id', "'*'"], ["'*'", "'*'"]] as const) {
        const byKey = key === 'h.key_id';
        // The failed requests' latency of the same account (or deployment), mode, time and endpoint (or all).
        const failed = `SELECT ${account === "'*'" ? "'*'" : 'h.account_id'} AS account_id, h.mode, ${time} AS at,
            ${endpoint === 'h.endpoint' ? 'h.endpoint' : "'*'"} AS endpoint, SUM(h.latency_ms_sum) AS latency
          FROM audit_errors_hourly h GROUP BY 1, 2, 3, 4`;
        await sql.raw(`INSERT INTO ${table} (account_id, mode, ${column}, key_id, endpoint, ${measures.join(', ')}, error_latency_ms_sum, ${LATENCY.join(', ')})
          SELECT ${account}, h.mode, ${time}, ${key}, ${endpoint}, ${measures.map((c) => `SUM(h.${c})`).join(', ')},
            ${byKey ? 'NULL' : 'COALESCE(MAX(f.latency), 0)'}, ${LATENCY.map((c) => `SUM(h.${c})`).join(', ')}
          FROM audit_hourly h
          ${byKey ? '' : `LEFT JOIN (${failed}) f ON f.account_id = ${account} AND f.mode = h.mode AND f.at = ${time} AND f.endpoint = ${endpoint}`}
          GROUP BY 1, 2, 3, 4, 5`).execute(db);
      }
    }
  }
  for (const account of ['account_id', "'*'"]) {
    for (const facet of ['endpoint', 'parameter', 'agent']) {
      await sql.raw(`INSERT INTO audit_error_facets_daily (account_id, mode, day, error_code, facet, value, errors, latency_ms_sum)
        SELECT ${account}, mode, DATE(hour), error_code, '${facet}', ${facet}, SUM(errors), SUM(latency_ms_sum)
        FROM audit_errors_hourly WHERE ${facet} <> '' GROUP BY 1, 2, 3, 4, 5, 6`).execute(db);
    }
    await sql.raw(`INSERT INTO audit_error_hours_daily (account_id, mode, day, error_code, ${HOURS.join(', ')})
      SELECT ${account}, mode, DATE(hour), error_code, ${HOURS.map((_, i) => `SUM(IF(HOUR(hour) = ${i}, errors, 0))`).join(', ')}
      FROM audit_errors_hourly GROUP BY 1, 2, 3, 4`).execute(db);
  }
  await sql`INSERT INTO audit_ips_deployment_daily (mode, day, endpoint, failed, ip, first_seen, last_seen)
    SELECT COALESCE(mode, ''), DATE(occurred_at), LEFT(endpoint, 128), failed, LEFT(ip_address, 45), MIN(occurred_at), MAX(occurred_at)
    FROM request_log GROUP BY 1, 2, 3, 4, 5`.execute(db);
  // Last, once nothing above sums audit_errors_hourly over accounts any more.
  await sql`INSERT INTO audit_errors_hourly (account_id, mode, hour, endpoint, error_code, parameter, agent, errors, latency_ms_sum)
    SELECT '*', mode, hour, endpoint, error_code, parameter, agent, SUM(errors), SUM(latency_ms_sum)
    FROM audit_errors_hourly GROUP BY 2, 3, 4, 5, 6, 7`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM audit_errors_hourly WHERE account_id = '*'`.execute(db);
  for (const table of ['audit_ips_deployment_daily', 'audit_error_hours_daily', 'audit_error_facets_daily', 'audit_totals_daily', 'audit_totals_hourly']) {
    await sql.raw(`DROP TABLE ${table}`).execute(db);
  }
}
