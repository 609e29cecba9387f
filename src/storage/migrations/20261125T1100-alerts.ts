import { sql, type Kysely } from 'kysely';

// Alert definitions, their evaluated state, the history of their transitions, and the fence that
// lets one evaluation per interval take effect however many processes evaluate.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE alerts (
    id VARCHAR(32) CHARACTER SET ascii NOT NULL PRIMARY KEY,
    owner_account_id VARCHAR(32) CHARACTER SET ascii NULL COMMENT 'null: made with the master key',
    owner_mode VARCHAR(8) CHARACTER SET ascii NOT NULL,
    name VARCHAR(100) NOT NULL,
    severity VARCHAR(8) CHARACTER SET ascii NOT NULL,
    \`condition\` VARCHAR(200) NOT NULL COMMENT 'as written; parsed again when evaluated',
    duration_ms BIGINT UNSIGNED NOT NULL,
    scope_account_id VARCHAR(32) CHARACTER SET ascii NULL COMMENT 'whose figures: null is the whole deployment',
    scope_mode VARCHAR(8) CHARACTER SET ascii NULL,
    scope_endpoint VARCHAR(128) CHARACTER SET ascii NULL,
    channels TEXT NOT NULL COMMENT 'channel destinations, webhook signing secret included',
    enabled BOOLEAN NOT NULL,
    created_at DATETIME(3) NOT NULL,
    updated_at DATETIME(3) NOT NULL,
    INDEX alerts_owner (owner_account_id, owner_mode, created_at)
  ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`.execute(db);

  await sql`CREATE TABLE alert_state (
    alert_id VARCHAR(32) CHARACTER SET ascii NOT NULL PRIMARY KEY,
    state VARCHAR(10) CHARACTER SET ascii NOT NULL,
    since DATETIME(3) NOT NULL,
    value DOUBLE NULL COMMENT 'the metric at the last evaluation; null without data',
    evaluated_at DATETIME(3) NOT NULL,
    INDEX alert_state_state (state)
  ) ENGINE=InnoDB`.execute(db);

  await sql`CREATE TABLE alert_events (
    id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
    event_id VARCHAR(40) CHARACTER SET ascii NOT NULL,
    alert_id VARCHAR(32) CHARACTER SET ascii NOT NULL,
    from_state VARCHAR(10) CHARACTER SET ascii NOT NULL,
    to_state VARCHAR(10) CHARACTER SET ascii NOT NULL,
    value DOUBLE NULL,
    message VARCHAR(500) NOT NULL,
    occurred_at DATETIME(3) NOT NULL,
    UNIQUE INDEX alert_events_event (event_id),
    INDEX alert_events_alert (alert_id, occurred_at),
    INDEX alert_events_time (occurred_at) COMMENT 'retention'
  ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`.execute(db);

  await sql`CREATE TABLE alert_evaluations (
    id TINYINT UNSIGNED NOT NULL PRIMARY KEY,
    last_tick BIGINT NOT NULL COMMENT 'the last interval whose evaluation was committed',
    evaluated_at DATETIME(3) NULL,
    alerts INT UNSIGNED NOT NULL DEFAULT 0,
    took_ms INT UNSIGNED NOT NULL DEFAULT 0
  ) ENGINE=InnoDB`.execute(db);
  await sql`INSERT INTO alert_evaluations (id, last_tick) VALUES (1, 0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['alert_evaluations', 'alert_events', 'alert_state', 'alerts']) await sql`DROP TABLE ${sql.table(table)}`.execute(db);
}
