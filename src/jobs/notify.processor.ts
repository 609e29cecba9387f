/**
 * The notify queue's worker: one job per delivery (job id = delivery id, data { delivery_id }).
 * A try loads the row, skips it when it is already delivered or dead, counts the try, sends,
 * and records the outcome. A failed try throws so BullMQ retries with exponential backoff and
 * jitter (the job's options, set by NotificationDispatcher.enqueue); the last failed try, or one
 * that cannot succeed (an address the SSRF guard refuses, 410 Gone), marks the row dead: the
 * dead letter. A worker killed mid-try loses its job lock NOTIFY_LOCK_MS later and another
 * worker sends again (at least once: the receiver sees the same Idempotency-Key).
 */
import { UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Logger } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Database } from '../storage/schema.js';
import { loadDelivery, markAttemptStarted, recordOutcome } from '../notify/deliveries.repository.js';
import { NOTIFY_QUEUE, type NotificationDispatcher, type NotifyJobData } from '../notify/dispatcher.js';
import { EmailSender } from '../notify/email-sender.js';
import { sendDelivery } from '../notify/send-delivery.js';

export interface NotifyWorkerDeps {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  db: Kysely<Database>;
  connection: ConnectionOptions;
  dispatcher: NotificationDispatcher;
  /** Jobs running in this process (shutdown waits for them; the heartbeat reports them). */
  counter: { active: number };
}

export interface NotifyWorker {
  readonly worker: Worker;
  /** Stops the relay and closes the SMTP pool; call after the worker has closed. */
  close(): Promise<void>;
}

/** How often each worker process runs the outbox relay. */
const RELAY_INTERVAL_MS = 30_000;
/**
 * Times a job may be recovered after its worker died before BullMQ fails it; the 'failed'
 * handler then marks its row dead, so even a delivery that kills every worker that tries it
 * ends as a dead letter.
 */
const MAX_STALLED = 3;
/** Tries that look again for a row not found (its transaction may not have committed yet). */
const MISSING_ROW_RETRIES = 2;

export function startNotifyWorker(deps: NotifyWorkerDeps): NotifyWorker {
  const { config, logger, metrics, db } = deps;
  const email = config.smtp ? new EmailSender(config.smtp, config.notify.timeoutMs) : undefined;
  const log = logger.child({ queue: NOTIFY_QUEUE });

  const attempt = async (job: Job<NotifyJobData>): Promise<unknown> => {
    const id = job.data.delivery_id;
    const lastTry = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const row = await loadDelivery(db, id);
    if (!row) {
      // Enqueued before its transaction committed (a retry finds it), or its alert was deleted
      // since (nothing to do: a couple of early retries cost little).
      if (!lastTry && job.attemptsMade < MISSING_ROW_RETRIES) throw new Error(`delivery ${id} not found`);
      log.warn({ delivery_id: id }, 'notification skipped: its delivery record no longer exists');
      return { skipped: 'missing' };
    }
    if (row.status === 'delivered' || row.status === 'dead') return { skipped: row.status };
    const channel = row.channel;
    const attempts = await markAttemptStarted(db, id);
    const stop = metrics.notificationDuration.startTimer({ channel });
    const result = await sendDelivery(row, { config, email });
    stop();
    const context = { delivery_id: id, alert_id: row.alert_id, event_id: row.event_id, channel, destination: row.destination, attempts };
    if (result.ok) {
      await recordOutcome(db, id, { status: 'delivered', statusCode: result.statusCode, ...(result.note ? { error: result.note } : {}) });
      metrics.notifications.inc({ channel, outcome: 'delivered' });
      log.info({ ...context, status_code: result.statusCode }, 'notification delivered');
      return { delivered: true };
    }
    if (result.permanent || lastTry) {
      await recordOutcome(db, id, { status: 'dead', error: result.error, statusCode: result.statusCode });
      metrics.notifications.inc({ channel, outcome: 'dead' });
      log.warn({ ...context, status_code: result.statusCode, error: result.error, permanent: result.permanent }, 'notification dead: no try left');
      throw new UnrecoverableError(result.error);
    }
    await recordOutcome(db, id, { status: 'retrying', error: result.error, statusCode: result.statusCode });
    metrics.notifications.inc({ channel, outcome: 'retried' });
    log.info({ ...context, status_code: result.statusCode, error: result.error }, 'notification try failed: retrying');
    throw new Error(result.error);
  };

  const worker = new Worker<NotifyJobData>(NOTIFY_QUEUE, async (job) => {
    deps.counter.active++;
    try {
      return await attempt(job);
    } finally {
      deps.counter.active--;
    }
  }, {
    connection: deps.connection,
    prefix: config.queuePrefix,
    concurrency: config.notify.concurrency,
    lockDuration: config.notify.lockMs,
    stalledInterval: config.notify.lockMs,
    maxStalledCount: MAX_STALLED,
  });
  worker.on('error', (error) => log.error({ err: error }, 'worker connection error'));
  // A job failed for good without the processor recording it (stalled too often, or an error
  // such as MySQL being away on its last try): its row becomes the dead letter.
  worker.on('failed', (job, error) => {
    if (!job?.finishedOn) return;
    const id = job.data.delivery_id;
    const markDead = async () => {
      const row = await loadDelivery(db, id);
      if (!row || row.status === 'delivered' || row.status === 'dead') return;
      if (!(await recordOutcome(db, id, { status: 'dead', error: error.message }))) return;
      metrics.notifications.inc({ channel: row.channel, outcome: 'dead' });
      log.warn({ delivery_id: id, alert_id: row.alert_id, channel: row.channel, error: error.message }, 'notification dead: its job failed outside a try');
    };
    markDead().catch((failure: unknown) => log.error({ err: failure, delivery_id: id }, 'could not record a dead notification'));
  });

  let relaying: Promise<unknown> = Promise.resolve();
  const relay = () => {
    relaying = deps.dispatcher.relay().catch((error: unknown) => log.error({ err: error }, 'notification relay failed'));
  };
  const first = setTimeout(relay, 1000);
  const timer = setInterval(relay, RELAY_INTERVAL_MS);
  first.unref();
  timer.unref();

  return {
    worker,
    async close() {
      clearTimeout(first);
      clearInterval(timer);
      await relaying;
      email?.close();
    },
  };
}
