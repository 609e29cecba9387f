import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool, type Transaction } from 'kysely';
import type { AlertsTable, Database } from '../storage/schema.js';
import { withNamedLock } from '../storage/named-lock.js';
import type { AlertState } from './alert-state.js';

export type AlertRow = AlertsTable;

export interface AlertWithState extends AlertRow {
  state: AlertState | null;
  since: Date | null;
  value: number | null;
  evaluated_at: Date | null;
}

/** Whose alerts a read covers: a key's account and mode, or (null) every alert, the master key's. */
export interface AlertOwner {
  accountId: string;
  mode: string;
}

/** Inserts the alert unless its owner already has `limit`; owners' creations take turns, so concurrent ones cannot pass it. */
export async function insertAlertWithin(db: Kysely<Database>, row: AlertRow, limit: number): Promise<{ inserted: true } | { inserted: false; count: number }> {
  return withNamedLock(db, `alerts:${row.owner_account_id ?? 'master'}:${row.owner_mode}`, async (conn) => {
    const count = await countOwned(conn, { accountId: row.owner_account_id, mode: row.owner_mode });
    if (count >= limit) return { inserted: false as const, count };
    await conn.insertInto('alerts').values(row).execute();
    return { inserted: true as const };
  });
}

export async function updateAlert(db: Kysely<Database>, id: string, row: Omit<AlertRow, 'id' | 'owner_account_id' | 'owner_mode' | 'created_at'>): Promise<void> {
  await db.updateTable('alerts').set(row).where('id', '=', id).execute();
}

export async function updateChannels(db: Kysely<Database>, id: string, channels: string, at: Date): Promise<void> {
  await db.updateTable('alerts').set({ channels, updated_at: at }).where('id', '=', id).execute();
}

/** Removes the alert, its state and its history; false when there was no such alert. */
export async function deleteAlert(db: Kysely<Database>, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const deleted = await trx.deleteFrom('alerts').where('id', '=', id).executeTakeFirst();
    await trx.deleteFrom('alert_state').where('alert_id', '=', id).execute();
    await trx.deleteFrom('alert_events').where('alert_id', '=', id).execute();
    return Number(deleted.numDeletedRows) > 0;
  });
}

function withState(db: Kysely<Database> | Transaction<Database>) {
  return db
    .selectFrom('alerts')
    .leftJoin('alert_state', 'alert_state.alert_id', 'alerts.id')
    .selectAll('alerts')
    .select(['alert_state.state', 'alert_state.since', 'alert_state.value', 'alert_state.evaluated_at']);
}

export async function findAlert(db: Kysely<Database>, id: string): Promise<AlertWithState | undefined> {
  const row = await withState(db).where('alerts.id', '=', id).executeTakeFirst();
  return row as AlertWithState | undefined;
}

/** A page of alerts, oldest first, and how many there are. `owner` null: every alert; `account` narrows the master key's list to one account's (owned or watched). */
export async function listAlerts(db: Kysely<Database>, owner: AlertOwner | null, account: string | undefined, limit: number, offset: number): Promise<{ total: number; rows: AlertWithState[] }> {
  const matching = (eb: ExpressionBuilder<Database, 'alerts'>): Expression<SqlBool> => {
    const all: Expression<SqlBool>[] = [];
    if (owner) all.push(eb('alerts.owner_account_id', '=', owner.accountId), eb('alerts.owner_mode', '=', owner.mode));
    if (account !== undefined) all.push(eb.or([eb('alerts.owner_account_id', '=', account), eb('alerts.scope_account_id', '=', account)]));
    return eb.and(all);
  };
  const [rows, total] = await Promise.all([
    withState(db).where(matching).orderBy('alerts.created_at').orderBy('alerts.id').limit(limit).offset(offset).execute(),
    db.selectFrom('alerts').select((eb) => eb.fn.countAll<string>().as('n')).where(matching).executeTakeFirstOrThrow(),
  ]);
  return { total: Number(total.n), rows: rows as AlertWithState[] };
}

async function countOwned(db: Kysely<Database>, owner: { accountId: string | null; mode: string }): Promise<number> {
  const row = await db.selectFrom('alerts').select((eb) => eb.fn.countAll<string>().as('n'))
    .where((eb) => (owner.accountId === null ? eb('owner_account_id', 'is', null) : eb('owner_account_id', '=', owner.accountId)))
    .where('owner_mode', '=', owner.mode)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Every enabled alert with its state: what one evaluation reads. */
export async function enabledAlerts(db: Kysely<Database> | Transaction<Database>): Promise<AlertWithState[]> {
  return (await withState(db).where('alerts.enabled', '=', 1).execute()) as AlertWithState[];
}

/** Firing alerts whose figures are an account's (in a mode), or (null) any. */
export async function firingAlerts(db: Kysely<Database>, scope: { accountId: string | null; mode: string | null }): Promise<AlertWithState[]> {
  let query = withState(db).where('alert_state.state', '=', 'firing').where('alerts.enabled', '=', 1);
  if (scope.accountId !== null) query = query.where('alerts.scope_account_id', '=', scope.accountId);
  if (scope.mode !== null) query = query.where('alerts.scope_mode', '=', scope.mode);
  return (await query.orderBy('alert_state.since', 'desc').limit(100).execute()) as AlertWithState[];
}

export interface EventRow {
  event_id: string;
  alert_id: string;
  from_state: string;
  to_state: string;
  value: number | null;
  message: string;
  occurred_at: Date;
}

export async function listEvents(db: Kysely<Database>, alertId: string, limit: number, offset: number): Promise<{ total: number; rows: EventRow[] }> {
  const [rows, total] = await Promise.all([
    db.selectFrom('alert_events').select(['event_id', 'alert_id', 'from_state', 'to_state', 'value', 'message', 'occurred_at'])
      .where('alert_id', '=', alertId).orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    db.selectFrom('alert_events').select((eb) => eb.fn.countAll<string>().as('n')).where('alert_id', '=', alertId).executeTakeFirstOrThrow(),
  ]);
  return { total: Number(total.n), rows };
}

export interface StateWrite {
  alertId: string;
  state: AlertState;
  since: Date;
  value: number | null;
}

/**
 * Runs `evaluate` for interval `tick` if no process has committed that interval (or a later one)
 * yet, inside a transaction holding the evaluation row's lock: processes evaluating the same
 * interval at once take turns, and the ones after the first find it done and write nothing. If
 * the first dies before committing, its transaction rolls back and the next one evaluates.
 * Returns undefined when the interval was already evaluated.
 */
export async function evaluateOnce<T>(db: Kysely<Database>, tick: number, evaluate: (trx: Transaction<Database>) => Promise<T>): Promise<T | undefined> {
  return db.transaction().execute(async (trx) => {
    const fence = await trx.selectFrom('alert_evaluations').select('last_tick').where('id', '=', 1).forUpdate().executeTakeFirstOrThrow();
    if (Number(fence.last_tick) >= tick) return undefined;
    return evaluate(trx);
  });
}

/** Writes the outcome of interval `tick`: every evaluated alert's state and value, the transitions, and the fence. */
export async function saveEvaluation(
  trx: Transaction<Database>,
  tick: number,
  at: Date,
  states: StateWrite[],
  events: EventRow[],
  tookMs: number,
): Promise<void> {
  // One statement for every state: 1,000 alerts are one round trip, not 1,000.
  for (let i = 0; i < states.length; i += 500) {
    const chunk = states.slice(i, i + 500);
    await trx.insertInto('alert_state')
      .values(chunk.map((s) => ({ alert_id: s.alertId, state: s.state, since: s.since, value: s.value, evaluated_at: at })))
      .onDuplicateKeyUpdate({
        state: sql`VALUES(state)`,
        since: sql`VALUES(since)`,
        value: sql`VALUES(value)`,
        evaluated_at: sql`VALUES(evaluated_at)`,
      })
      .execute();
  }
  if (events.length > 0) await trx.insertInto('alert_events').values(events).execute();
  await trx.updateTable('alert_evaluations').set({ last_tick: tick, evaluated_at: at, alerts: states.length, took_ms: Math.round(tookMs) }).where('id', '=', 1).execute();
}

export async function lastEvaluation(db: Kysely<Database>): Promise<{ last_tick: number; evaluated_at: Date | null; alerts: number; took_ms: number }> {
  const row = await db.selectFrom('alert_evaluations').select(['last_tick', 'evaluated_at', 'alerts', 'took_ms']).where('id', '=', 1).executeTakeFirstOrThrow();
  return { ...row, last_tick: Number(row.last_tick) };
}

export async function recordEvent(db: Kysely<Database> | Transaction<Database>, event: EventRow): Promise<void> {
  await db.insertInto('alert_events').values(event).execute();
}
