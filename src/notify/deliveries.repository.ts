/**
 * SQL of notification deliveries: one row per alert event and channel. The row is written with
 * the alert's transition (an outbox: pass the transaction), handed to the notify queue after
 * the commit, updated by the worker on every try, and stays as the delivery log; a row whose
 * tries are used up is the dead letter (status 'dead').
 */
import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database, NotificationDeliveriesTable } from '../storage/schema.js';
import type { Channel, ChannelTarget, Notification } from './notification.js';

type Db = Kysely<Database> | Transaction<Database>;
export type DeliveryRow = Selectable<NotificationDeliveriesTable>;
export type DeliveryStatus = 'queued' | 'retrying' | 'delivered' | 'dead';

/** A delivery as the log shows it: no secret, no template, times in ISO 8601. */
export interface DeliveryView {
  id: string;
  event: string;
  event_id: string;
  channel: Channel;
  destination: string;
  status: DeliveryStatus;
  /** Tries made so far (a try cut short by a worker's death counts too). */
  attempts: number;
  /** The latest failure, kept after a later try succeeded; null when no try failed. */
  last_error: string | null;
  /** HTTP status of the latest answer (webhook, Slack) or SMTP reply code; null before any answer. */
  last_status_code: number | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

/** Who the alert belongs to: the deliveries are listed and removed with it. */
export interface DeliveryOwner {
  alertId: string;
  accountId: string | null;
  mode: string;
}

const DESTINATION_MAX = 2048;
const ERROR_MAX = 1024;

export function newDeliveryId(): string {
  // BullMQ job ids must not be integers nor contain ':'; hex is neither.
  return `dlv_${randomBytes(12).toString('hex')}`;
}

/** Where a target sends, as the log shows it (never the secret). */
export function destinationOf(target: ChannelTarget): string {
  const text = target.type === 'webhook' ? target.url : target.type === 'slack' ? target.webhook_url : target.to.join(',');
  return text.length <= DESTINATION_MAX ? text : `${text.slice(0, DESTINATION_MAX - 1)}…`;
}

/**
 * Records one delivery of `n` per target, status 'queued', not yet enqueued. Idempotent: an
 * event already recorded for a channel keeps its row and id, and nothing is inserted twice.
 * Returns the ids in the order of `targets`. Call it inside the transaction that records the
 * alert's transition, and NotificationDispatcher.enqueue(ids) after the commit.
 * @throws Error when two targets share a channel type (an event notifies each channel once).
 */
export async function insertDeliveries(db: Db, n: Notification, targets: ChannelTarget[], owner: DeliveryOwner): Promise<string[]> {
  if (targets.length === 0) return [];
  const channels = targets.map((t) => t.type);
  if (new Set(channels).size !== channels.length) throw new Error(`one target per channel type, got ${channels.join(', ')}`);
  const now = new Date();
  const notification = JSON.stringify(n);
  await db.insertInto('notification_deliveries').values(targets.map((target) => ({
    id: newDeliveryId(),
    alert_id: owner.alertId,
    account_id: owner.accountId,
    mode: owner.mode,
    event_id: n.eventId,
    event: n.event,
    channel: target.type,
    destination: destinationOf(target),
    target: JSON.stringify(target),
    notification,
    status: 'queued',
    attempts: 0,
    last_error: null,
    last_status_code: null,
    enqueued_at: null,
    created_at: now,
    updated_at: now,
    delivered_at: null,
  })))
    // A row of the same event and channel stays as it is (INSERT IGNORE would hide other errors too).
    .onDuplicateKeyUpdate({ event_id: sql`event_id` })
    .execute();
  const rows = await db.selectFrom('notification_deliveries').select(['id', 'channel'])
    .where('event_id', '=', n.eventId).where('channel', 'in', channels).execute();
  const byChannel = new Map(rows.map((r) => [r.channel, r.id]));
  return channels.map((channel) => byChannel.get(channel)!);
}

function view(row: DeliveryRow): DeliveryView {
  return {
    id: row.id,
    event: row.event,
    event_id: row.event_id,
    channel: row.channel as Channel,
    destination: row.destination,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    last_error: row.last_error,
    last_status_code: row.last_status_code,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    delivered_at: row.delivered_at?.toISOString() ?? null,
  };
}

const VIEW_COLUMNS = ['id', 'event', 'event_id', 'channel', 'destination', 'status', 'attempts', 'last_error', 'last_status_code', 'created_at', 'updated_at', 'delivered_at'] as const;

/** The delivery log of an alert, newest first, and how many deliveries it has in all. */
export async function listDeliveries(db: Db, alertId: string, limit: number, offset: number): Promise<{ total: number; deliveries: DeliveryView[] }> {
  const [count, rows] = await Promise.all([
    db.selectFrom('notification_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('alert_id', '=', alertId).executeTakeFirstOrThrow(),
    db.selectFrom('notification_deliveries').select(VIEW_COLUMNS).where('alert_id', '=', alertId)
      .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
  ]);
  return { total: Number(count.n), deliveries: rows.map((r) => view(r as DeliveryRow)) };
}

/** The deliveries of these ids that exist, in the order asked. */
export async function findDeliveries(db: Db, ids: string[]): Promise<DeliveryView[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('notification_deliveries').select(VIEW_COLUMNS).where('id', 'in', ids).execute();
  const byId = new Map(rows.map((r) => [r.id, view(r as DeliveryRow)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Removes an alert's delivery log (when the alert is deleted). Deliveries still queued are then skipped by the worker. */
export async function deleteDeliveriesOf(db: Db, alertId: string): Promise<number> {
  const result = await db.deleteFrom('notification_deliveries').where('alert_id', '=', alertId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

// ---------------------------------------------------------------------------------------------
// Used by the dispatcher and the worker.

/** The whole row, secret and template included: for the worker only. */
export async function loadDelivery(db: Db, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom('notification_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function markEnqueued(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('notification_deliveries').set({ enqueued_at: sql<Date>`UTC_TIMESTAMP(3)` })
    .where('id', 'in', ids).where('enqueued_at', 'is', null).execute();
}

/** Rows never handed to the queue, recorded more than `olderThanMs` ago (by the database's clock), oldest first. */
export async function unqueuedDeliveries(db: Db, olderThanMs: number, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('notification_deliveries').select('id')
    .where('enqueued_at', 'is', null)
    .where('created_at', '<=', sql<Date>`UTC_TIMESTAMP(3) - INTERVAL ${Math.max(0, Math.round(olderThanMs * 1000))} MICROSECOND`)
    .where('status', 'in', ['queued', 'retrying'])
    .orderBy('created_at').limit(limit).execute();
  return rows.map((r) => r.id);
}

/** Counts a try as started (before it is made: a try cut short by a dying worker still counts). */
export async function markAttemptStarted(db: Db, id: string): Promise<number> {
  await db.updateTable('notification_deliveries').set((eb) => ({ attempts: eb('attempts', '+', 1), updated_at: sql<Date>`UTC_TIMESTAMP(3)` }))
    .where('id', '=', id).execute();
  const row = await db.selectFrom('notification_deliveries').select('attempts').where('id', '=', id).executeTakeFirst();
  return row?.attempts ?? 0;
}

export interface AttemptOutcome {
  status: Exclude<DeliveryStatus, 'queued'>;
  /** Set on failure; left as it was on success (the log keeps the latest failure). */
  error?: string;
  statusCode?: number | null;
}

/**
 * Records the outcome of a try. A row already delivered or dead is left alone: a try that
 * overlapped another (a worker presumed dead that was only slow) cannot undo its outcome.
 * Returns whether the row changed.
 */
export async function recordOutcome(db: Db, id: string, outcome: AttemptOutcome): Promise<boolean> {
  const now = sql<Date>`UTC_TIMESTAMP(3)`;
  const result = await db.updateTable('notification_deliveries')
    .set({
      status: outcome.status,
      updated_at: now,
      ...(outcome.error !== undefined ? { last_error: outcome.error.slice(0, ERROR_MAX) } : {}),
      ...(outcome.statusCode !== undefined ? { last_status_code: outcome.statusCode } : {}),
      ...(outcome.status === 'delivered' ? { delivered_at: now } : {}),
    })
    .where('id', '=', id).where('status', 'in', ['queued', 'retrying'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
