/**
 * Alert definitions through the API: create, list, read, replace, delete, their history and
 * delivery log, a test notification, and the firing alerts GET /v1/metrics/live lists. Every
 * mistake in a definition is refused when it is saved, never when it fires.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors/catalogue.js';
import { randomId } from '../auth/key-format.js';
import { operatorOnly, type Principal } from '../auth/principal.js';
import type { Mode } from '../mode.js';
import type { Database } from '../storage/schema.js';
import { timeSpanMs } from '../schema/formats.js';
import type { Notification } from '../notify/notification.js';
import { checkPayloadTemplate } from '../notify/notification.js';
import { newSigningSecret } from '../notify/signature.js';
import { destinationRefusal } from '../notify/http-post.js';
import { deleteDeliveriesOf, findDeliveries, insertDeliveries, listDeliveries, type DeliveryView } from '../notify/deliveries.repository.js';
import type { NotificationDispatcher } from '../notify/dispatcher.js';
import { ACCOUNT_METRICS, DEPLOYMENT_METRICS } from './alert-metrics.js';
import { alertView, parseChannels, scopeOf, targetsOf, type AlertInput, type StoredChannels } from './alert-definition.js';
import { formatValue, scopeText } from './alert-message.js';
import { ConditionError, parseCondition, type Condition } from './condition.js';
import type { AlertScope } from './alert-figures.js';
import {
  deleteAlert, findAlert, firingAlerts, insertAlertWithin, listAlerts, updateChannels, listEvents, updateAlert, type AlertWithState,
} from './alerts.repository.js';

/** Alerts one owner (an account in one mode, or the master key) may keep: evaluation is sized for thousands in all. */
export const MAX_ALERTS_PER_OWNER = 1000;
/** Longest duration: a condition that must hold for more than a week is a report, not an alert. */
const MAX_DURATION_MS = 7 * 86_400_000;
/** How long a rotated webhook secret keeps signing beside the new one, as a rotated API key stays valid. */
const ROTATION_OVERLAP_MS = 24 * 3_600_000;
/** How long POST /v1/alerts/{id}/test waits for the first attempts before answering. */
const TEST_WAIT_MS = 10_000;

export interface AlertServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  dispatcher: NotificationDispatcher;
  /** Route paths of the API: what scope.endpoint may name. */
  endpoints: ReadonlySet<string>;
  /** Private ranges destinations may nevertheless be in (FETCH_ALLOW_PRIVATE). */
  allowedCidrs: readonly string[];
  /** False without SMTP_HOST: the email channel is refused. */
  emailEnabled: boolean;
  /** Throws NOT_FOUND for an account that does not exist. */
  getAccount(id: string): Promise<unknown>;
}

export interface Page {
  limit: number;
  offset: number;
}

/** What GET /v1/metrics/live lists of a firing alert (section 2.10). */
export interface FiringAlert {
  level: string;
  message: string;
  timestamp: string;
  duration: number;
}

function invalid(parameter: string, reason: string, provided: unknown): ApiError {
  return new ApiError('INVALID_PARAMETER', { parameter, reason, provided }, `${parameter} ${reason}.`);
}

export class AlertService {
  constructor(private readonly deps: AlertServiceDeps) {}

  async create(actor: Principal, input: AlertInput): Promise<Record<string, unknown>> {
    const definition = await this.definition(actor, input, undefined);
    const now = this.deps.clock.now();
    const id = randomId('alrt');
    const stored = await insertAlertWithin(this.deps.db, { id, owner_account_id: actor.accountId, owner_mode: actor.mode, ...definition, created_at: now, updated_at: now }, MAX_ALERTS_PER_OWNER);
    if (!stored.inserted) {
      throw new ApiError('RESOURCE_LIMIT_REACHED', { resource: 'alerts', limit: MAX_ALERTS_PER_OWNER, count: stored.count },
        `This owner already has ${stored.count} alerts, the most one owner may have: delete one, or replace one with PUT.`);
    }
    return this.view(id);
  }

  async list(actor: Principal, query: Page & { account_id?: string }): Promise<Record<string, unknown>> {
    const operator = actor.permissions.has('operator');
    if (!operator && query.account_id !== undefined && query.account_id !== actor.accountId) throw operatorOnly(actor);
    const owner = operator ? null : { accountId: actor.accountId!, mode: actor.mode };
    const { total, rows } = await listAlerts(this.deps.db, owner, operator ? query.account_id : undefined, query.limit, query.offset);
    return { items: rows.map((row) => alertView(row, this.deps.clock.now())), total, limit: query.limit, offset: query.offset };
  }

  async get(actor: Principal, id: string): Promise<Record<string, unknown>> {
    return alertView(await this.visible(actor, id), this.deps.clock.now());
  }

  async replace(actor: Principal, id: string, input: AlertInput): Promise<Record<string, unknown>> {
    const existing = await this.visible(actor, id);
    const definition = await this.definition(actor, input, parseChannels(existing.channels));
    // The state is kept: the next evaluation reads the new condition, and a firing alert whose
    // new condition is false resolves (and notifies) as any other.
    await updateAlert(this.deps.db, id, { ...definition, updated_at: this.deps.clock.now() });
    return this.view(id);
  }

  /**
   * A new webhook signing secret. The old one keeps signing beside it (a second `v1=` in the
   * header) for ROTATION_OVERLAP_MS, so receivers can switch to the new one without losing any
   * notification; rotating again within that time ends the older one at once.
   */
  async rotateSecret(actor: Principal, id: string): Promise<Record<string, unknown>> {
    const row = await this.visible(actor, id);
    const channels = parseChannels(row.channels);
    if (!channels.webhook) throw invalid('channels', 'has no webhook: only a webhook has a signing secret', channels.list);
    const now = this.deps.clock.now();
    channels.webhook = {
      ...channels.webhook,
      signing_secret: newSigningSecret(),
      previous_secret: { secret: channels.webhook.signing_secret, until: new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString() },
    };
    await updateChannels(this.deps.db, id, JSON.stringify(channels), now);
    return this.view(id);
  }

  async remove(actor: Principal, id: string): Promise<Record<string, unknown>> {
    await this.visible(actor, id);
    await deleteAlert(this.deps.db, id);
    // A delivery whose row is gone is skipped by the worker: nothing more is sent for a deleted alert.
    await deleteDeliveriesOf(this.deps.db, id);
    return { alert_id: id, deleted: true };
  }

  async history(actor: Principal, id: string, page: Page): Promise<Record<string, unknown>> {
    await this.visible(actor, id);
    const { total, rows } = await listEvents(this.deps.db, id, page.limit, page.offset);
    return {
      alert_id: id,
      items: rows.map((e) => ({ event_id: e.event_id, from: e.from_state, to: e.to_state, value: e.value, message: e.message, timestamp: e.occurred_at.toISOString() })),
      total,
      limit: page.limit,
      offset: page.offset,
    };
  }

  async deliveries(actor: Principal, id: string, page: Page): Promise<Record<string, unknown>> {
    await this.visible(actor, id);
    const { total, deliveries } = await listDeliveries(this.deps.db, id, page.limit, page.offset);
    return { alert_id: id, items: deliveries.map(deliveryView), total, limit: page.limit, offset: page.offset };
  }

  /**
   * Sends one notification of the alert now, on every channel, through the same queue, retries
   * and log as real ones; answers when the first attempts have ended (or after TEST_WAIT_MS).
   */
  async test(actor: Principal, id: string): Promise<Record<string, unknown>> {
    const row = await this.visible(actor, id);
    const condition = parseCondition(row.condition);
    const scope = scopeOf(row);
    const eventId = randomId('evt');
    const notification: Notification = {
      eventId,
      event: 'alert.test',
      alert: { id: row.id, name: row.name, severity: row.severity as Notification['alert']['severity'], condition: row.condition },
      message: `Test notification of ${row.name} (${row.condition}) on ${scopeText(scope)}; last value ${formatValue(condition, row.value)}`,
      timestamp: this.deps.clock.now().toISOString(),
      metrics: { [condition.metric]: row.value, threshold: condition.threshold },
    };
    const ids = await insertDeliveries(this.deps.db, notification, targetsOf(parseChannels(row.channels)),
      { alertId: row.id, accountId: row.owner_account_id, mode: row.owner_mode });
    await this.deps.dispatcher.enqueue(ids);
    const deadline = Date.now() + TEST_WAIT_MS;
    let deliveries = await findDeliveries(this.deps.db, ids);
    while (deliveries.some((d) => d.status === 'queued') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      deliveries = await findDeliveries(this.deps.db, ids);
    }
    return { alert_id: row.id, event_id: eventId, deliveries: deliveries.map(deliveryView) };
  }

  /** Firing alerts over an account's figures in a mode, or (nulls) every firing alert: what live metrics list. */
  async firing(scope: { accountId: string | null; mode: string | null }, now: Date): Promise<FiringAlert[]> {
    const rows = await firingAlerts(this.deps.db, scope);
    return rows.map((row) => {
      const condition = parseCondition(row.condition);
      return {
        level: row.severity,
        message: `${row.name}: ${condition.metric} is ${formatValue(condition, row.value)} (${row.condition}) on ${scopeText(scopeOf(row))}`,
        timestamp: row.since!.toISOString(),
        duration: Math.max(0, Math.floor((now.getTime() - row.since!.getTime()) / 1000)),
      };
    });
  }

  private async view(id: string): Promise<Record<string, unknown>> {
    return alertView((await findAlert(this.deps.db, id))!, this.deps.clock.now());
  }

  /** The alert, if `actor` may see it: a key its own account's in its own mode, the master key any. Others are 404, as if absent. */
  private async visible(actor: Principal, id: string): Promise<AlertWithState> {
    // Alert ids are printable ASCII, as their column is; anything else names no alert (and MySQL
    // refuses to compare it with the column at all).
    const row = /^[!-~]+$/.test(id) ? await findAlert(this.deps.db, id) : undefined;
    const mine = row && (actor.permissions.has('operator') || (row.owner_account_id === actor.accountId && row.owner_mode === actor.mode));
    if (!row || !mine) throw new ApiError('NOT_FOUND', { resource: 'alert', id }, `No alert with id ${id}.`);
    return row;
  }

  /** The stored columns of a valid definition; every rule the schema cannot state is checked here. */
  private async definition(actor: Principal, input: AlertInput, previous: StoredChannels | undefined) {
    let condition: Condition;
    try {
      condition = parseCondition(input.condition);
    } catch (error) {
      if (error instanceof ConditionError) throw invalid('condition', error.message, input.condition);
      throw error;
    }
    const scope = await this.scope(actor, input.scope);
    if (ACCOUNT_METRICS.has(condition.metric)) {
      if (scope.accountId === null) throw invalid('condition', `reads ${condition.metric}, an account's monthly quota: name the account in scope.account_id`, input.condition);
      if (scope.endpoint !== null) throw invalid('scope.endpoint', `must be absent: ${condition.metric} is the account's, not an endpoint's`, scope.endpoint);
    }
    if (DEPLOYMENT_METRICS.has(condition.metric) && scope.endpoint !== null) {
      throw invalid('scope.endpoint', `must be absent: ${condition.metric} is the whole deployment's`, scope.endpoint);
    }
    const durationMs = input.duration === undefined ? 0 : timeSpanMs(input.duration);
    if (durationMs > MAX_DURATION_MS) throw invalid('duration', 'must be at most 7d', input.duration);
    return {
      name: input.name,
      severity: input.severity,
      condition: input.condition,
      duration_ms: durationMs,
      scope_account_id: scope.accountId,
      scope_mode: scope.mode,
      scope_endpoint: scope.endpoint,
      channels: JSON.stringify(this.channels(input, previous)),
      enabled: input.enabled ? 1 : 0,
    };
  }

  private async scope(actor: Principal, requested: AlertInput['scope'] = {}): Promise<AlertScope> {
    const endpoint = requested.endpoint ?? null;
    if (endpoint !== null && !this.deps.endpoints.has(endpoint)) {
      throw invalid('scope.endpoint', 'is not an endpoint of this API (the paths of GET /v1/openapi.json, such as /v1/search)', endpoint);
    }
    if (!actor.permissions.has('operator')) {
      if ((requested.account_id !== undefined && requested.account_id !== actor.accountId) || (requested.mode !== undefined && requested.mode !== actor.mode)) {
        throw operatorOnly(actor);
      }
      return { accountId: actor.accountId, mode: actor.mode, endpoint };
    }
    if (requested.account_id !== undefined) {
      await this.deps.getAccount(requested.account_id);
      return { accountId: requested.account_id, mode: requested.mode ?? 'live', endpoint };
    }
    // Per-endpoint counts are kept for every request and for each account's, not per mode.
    if (requested.mode !== undefined && endpoint !== null) throw invalid('scope.mode', 'must come with scope.account_id when scope.endpoint is set', requested.mode);
    return { accountId: null, mode: (requested.mode ?? null) as Mode | null, endpoint };
  }

  private channels(input: AlertInput, previous: StoredChannels | undefined): StoredChannels {
    for (const channel of ['webhook', 'slack', 'email'] as const) {
      const listed = input.channels.includes(channel);
      if (listed && input[channel] === undefined) throw invalid(channel, `is required: channels lists ${channel}`, null);
      if (!listed && input[channel] !== undefined) throw invalid(channel, `is set but channels does not list ${channel}`, input[channel]);
    }
    if (input.email && !this.deps.emailEnabled) {
      throw invalid('channels', 'lists email, but this deployment sends no email (SMTP_HOST is not configured)', input.channels);
    }
    const stored: StoredChannels = { list: input.channels };
    if (input.webhook) {
      const refusal = destinationRefusal(input.webhook.url, this.deps.allowedCidrs);
      if (refusal) throw invalid('webhook.url', refusal, input.webhook.url);
      const template = input.webhook.payload_template;
      if (template !== undefined) {
        const check = checkPayloadTemplate(template);
        if (!check.ok) throw invalid('webhook.payload_template', `at position ${check.position}: ${check.reason}`, template);
      }
      // The secret outlives edits: receivers keep verifying with the one they were given.
      const kept = previous?.webhook;
      stored.webhook = {
        url: input.webhook.url, payload_template: template ?? null, signing_secret: kept?.signing_secret ?? newSigningSecret(),
        ...(kept?.previous_secret ? { previous_secret: kept.previous_secret } : {}),
      };
    }
    if (input.slack) {
      const refusal = destinationRefusal(input.slack.webhook_url, this.deps.allowedCidrs);
      if (refusal) throw invalid('slack.webhook_url', refusal, input.slack.webhook_url);
      stored.slack = { webhook_url: input.slack.webhook_url };
    }
    if (input.email) stored.email = { to: input.email.to };
    return stored;
  }
}

function deliveryView(d: DeliveryView): Record<string, unknown> {
  const { id, ...rest } = d;
  return { delivery_id: id, ...rest };
}
