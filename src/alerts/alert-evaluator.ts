/**
 * Evaluates every enabled alert once per interval across the whole cluster. Every worker process
 * (and the all-in-one process) wakes at each interval boundary; the interval is numbered
 * (epoch ms / interval), and the database's evaluation row is its fence: the first process to
 * lock it evaluates and commits the states, the history and the notifications' deliveries in one
 * transaction, with the interval's number; the others find the number already there and do
 * nothing. A process that dies mid-evaluation commits nothing, and the next in line evaluates.
 * Deliveries are handed to the notification queue after the commit (and by the dispatcher's
 * relay if this process dies in between), so each state change notifies each channel once.
 */
import type { Redis } from 'ioredis';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Mode } from '../mode.js';
import type { Database } from '../storage/schema.js';
import { randomId } from '../auth/key-format.js';
import { waitingJobs, type Queues } from '../queue/queues.js';
import { emptyCounts, MINUTE_MS, minuteOf, readMinutes, readProcesses, sumMinutes, type MinuteCounts } from '../monitor/live-store.js';
import { RECENT_MINUTES } from '../monitor/live-metrics.js';
import type { Notification } from '../notify/notification.js';
import { insertDeliveries } from '../notify/deliveries.repository.js';
import type { NotificationDispatcher } from '../notify/dispatcher.js';
import { liveScopeOf, metricValue, type AlertScope, type Figures } from './alert-figures.js';
import { step, type AlertState } from './alert-state.js';
import { transitionMessage } from './alert-message.js';
import { parseChannels, scopeOf, targetsOf } from './alert-definition.js';
import { holds, parseCondition, type Condition } from './condition.js';
import { enabledAlerts, evaluateOnce, saveEvaluation, type AlertWithState, type EventRow, type StateWrite } from './alerts.repository.js';

export interface EvaluatorDeps {
  db: Kysely<Database>;
  redis: Redis;
  prefix: string;
  queues: Queues;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  dispatcher: NotificationDispatcher;
  /** An account's quota month in a mode: requests used and the monthly limit (null: none). */
  quota(accountId: string, mode: Mode): Promise<{ used: number; limit: number | null }>;
  intervalMs: number;
}

export interface EvaluationOutcome {
  tick: number;
  evaluated: number;
  transitions: number;
  deliveries: string[];
  tookMs: number;
}

interface Evaluated {
  row: AlertWithState;
  condition: Condition;
  scope: AlertScope;
}

export class AlertEvaluator {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(private readonly deps: EvaluatorDeps) {}

  /** Wakes at every interval boundary (plus a little, so the interval's last counts have been flushed). */
  start(): void {
    const schedule = () => {
      if (this.stopped) return;
      const now = this.deps.clock.now().getTime();
      const next = (Math.floor(now / this.deps.intervalMs) + 1) * this.deps.intervalMs;
      this.timer = setTimeout(() => {
        this.running = this.runTick(Math.floor(next / this.deps.intervalMs))
          .catch((error: unknown) => {
            this.deps.metrics.alertEvaluations.inc({ outcome: 'failed' });
            this.deps.logger.warn({ err: error }, 'alert evaluation failed; the next interval tries again');
          })
          .finally(schedule);
      }, next - now + 50);
      this.timer.unref();
    };
    schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Evaluates interval `tick` unless another process has; undefined when it had. */
  async runTick(tick: number): Promise<EvaluationOutcome | undefined> {
    const started = performance.now();
    const outcome = await evaluateOnce(this.deps.db, tick, (trx) => this.evaluate(trx, tick, started));
    if (!outcome) {
      this.deps.metrics.alertEvaluations.inc({ outcome: 'skipped' });
      return undefined;
    }
    this.deps.metrics.alertEvaluations.inc({ outcome: 'evaluated' });
    this.deps.metrics.alertEvaluationSeconds.observe(outcome.tookMs / 1000);
    if (outcome.deliveries.length > 0) await this.deps.dispatcher.enqueue(outcome.deliveries);
    return outcome;
  }

  private async evaluate(trx: Transaction<Database>, tick: number, started: number): Promise<EvaluationOutcome> {
    const now = this.deps.clock.now();
    const alerts: Evaluated[] = [];
    for (const row of await enabledAlerts(trx)) {
      try {
        alerts.push({ row, condition: parseCondition(row.condition), scope: scopeOf(row) });
      } catch (error) {
        // Saved conditions were parsed when saved; one that no longer parses (a metric renamed
        // by an upgrade) must not stop the others.
        this.deps.logger.error({ err: error, alert_id: row.id }, 'alert condition no longer parses; skipped');
      }
    }
    const figures = await this.figures(alerts, now);
    const states: StateWrite[] = [];
    const events: EventRow[] = [];
    const deliveries: string[] = [];
    for (const alert of alerts) {
      const value = metricValue(alert.condition.metric, alert.scope, figures(alert.scope));
      const current = { state: (alert.row.state ?? 'inactive') as AlertState, since: alert.row.since ?? now };
      const change = step(current, value !== null && holds(alert.condition, value), Number(alert.row.duration_ms), now);
      states.push({ alertId: alert.row.id, state: change.next.state, since: change.next.since, value });
      if (!change.changed) continue;
      this.deps.metrics.alertTransitions.inc({ state: change.next.state });
      const message = transitionMessage({ name: alert.row.name, condition: alert.condition, text: alert.row.condition, scope: alert.scope }, current.state, change.next.state, value);
      const event: EventRow = {
        event_id: randomId('evt'), alert_id: alert.row.id, from_state: current.state, to_state: change.next.state, value, message, occurred_at: now,
      };
      events.push(event);
      if (change.notify) {
        const notification: Notification = {
          eventId: event.event_id,
          event: change.notify,
          alert: { id: alert.row.id, name: alert.row.name, severity: alert.row.severity as Notification['alert']['severity'], condition: alert.row.condition },
          message,
          timestamp: now.toISOString(),
          metrics: { [alert.condition.metric]: value, threshold: alert.condition.threshold },
        };
        deliveries.push(...await insertDeliveries(trx, notification, targetsOf(parseChannels(alert.row.channels)),
          { alertId: alert.row.id, accountId: alert.row.owner_account_id, mode: alert.row.owner_mode }));
      }
    }
    const tookMs = performance.now() - started;
    await saveEvaluation(trx, tick, now, states, events, tookMs);
    return { tick, evaluated: alerts.length, transitions: events.length, deliveries, tookMs };
  }

  /**
   * Reads what the alerts need, once for all of them: the per-minute counts of every scope they
   * watch (one Redis round trip), and only if some alert needs them the processes' load, the
   * queues' depth and each account's quota month.
   */
  private async figures(alerts: readonly Evaluated[], now: Date): Promise<(scope: AlertScope) => Figures> {
    const nowMs = now.getTime();
    const current = minuteOf(nowMs);
    const first = current - RECENT_MINUTES + 1;
    const scopes = [...new Set(alerts.map((a) => liveScopeOf(a.scope)))];
    const needs = (metric: string) => alerts.some((a) => a.condition.metric === metric);
    const accounts = new Map<string, { accountId: string; mode: Mode }>();
    for (const a of alerts) {
      if (a.condition.metric === 'usage_percentage' && a.scope.accountId !== null) {
        const mode = a.scope.mode ?? 'live';
        accounts.set(`${a.scope.accountId}:${mode}`, { accountId: a.scope.accountId, mode });
      }
    }
    const [minutes, processes, queueDepth, quotas] = await Promise.all([
      scopes.length > 0 ? readMinutes(this.deps.redis, this.deps.prefix, scopes, first, current) : Promise.resolve<MinuteCounts>(new Map()),
      needs('requests_per_minute') ? readProcesses(this.deps.redis, this.deps.prefix, nowMs) : undefined,
      needs('queue_depth') ? waitingJobs(this.deps.queues) : 0,
      Promise.all([...accounts].map(async ([key, { accountId, mode }]) => [key, await this.deps.quota(accountId, mode)] as const)),
    ]);
    const quotaOf = new Map(quotas);
    const deploymentRpm = processes ? processes.fresh.reduce((sum, p) => sum + p.requests_last_minute, 0) : 0;
    const windowMinutes = RECENT_MINUTES - 1 + (nowMs % MINUTE_MS) / MINUTE_MS;
    return (scope) => {
      const quota = scope.accountId !== null ? quotaOf.get(`${scope.accountId}:${scope.mode ?? 'live'}`) : undefined;
      return {
        window: scopes.length > 0 ? sumMinutes(minutes, liveScopeOf(scope), first, current) : emptyCounts(),
        windowMinutes,
        deploymentRequestsPerMinute: deploymentRpm,
        queueDepth,
        quota: quota && quota.limit !== null && quota.limit > 0 ? { used: quota.used, limit: quota.limit } : undefined,
      };
    };
  }
}
