/**
 * An alert definition as the API takes it, as it is stored, and as it is shown.
 */
import type { Mode } from '../mode.js';
import type { Channel, ChannelTarget, Severity } from '../notify/notification.js';
import type { AlertState } from './alert-state.js';
import type { AlertWithState } from './alerts.repository.js';
import type { AlertScope } from './alert-figures.js';
import { parseCondition } from './condition.js';

/** Body of POST /v1/alerts and PUT /v1/alerts/{id} (schemas/alert.request.json), defaults filled in. */
export interface AlertInput {
  name: string;
  condition: string;
  duration?: string;
  severity: Severity;
  channels: Channel[];
  webhook?: { url: string; payload_template?: string };
  slack?: { webhook_url: string };
  email?: { to: string[] };
  scope?: { account_id?: string; mode?: Mode; endpoint?: string };
  enabled: boolean;
}

/** The channels column: the channels in the order given, and each one's destination. */
export interface StoredChannels {
  list: Channel[];
  webhook?: {
    url: string;
    payload_template: string | null;
    signing_secret: string;
    /** After a rotation: the replaced secret, which keeps signing beside the new one until `until`. */
    previous_secret?: { secret: string; until: string };
  };
  slack?: { webhook_url: string };
  email?: { to: string[] };
}

export function parseChannels(json: string): StoredChannels {
  return JSON.parse(json) as StoredChannels;
}

/** Where one event of the alert is delivered: one target per channel. */
export function targetsOf(channels: StoredChannels): ChannelTarget[] {
  return channels.list.map((channel): ChannelTarget => {
    switch (channel) {
      case 'webhook': {
        const { url, payload_template, signing_secret, previous_secret } = channels.webhook!;
        return {
          type: 'webhook', url, signing_secret, ...(payload_template !== null ? { payload_template } : {}), ...(previous_secret ? { previous_secret } : {}),
        };
      }
      case 'slack':
        return { type: 'slack', webhook_url: channels.slack!.webhook_url };
      case 'email':
        return { type: 'email', to: channels.email!.to };
    }
  });
}

/** Whose figures a stored alert reads. */
export function scopeOf(row: AlertWithState): AlertScope {
  return { accountId: row.scope_account_id, mode: row.scope_mode as Mode | null, endpoint: row.scope_endpoint };
}

const iso = (at: Date | null) => (at === null ? null : at.toISOString());

/** What GET /v1/alerts/{id} answers (schemas/alert.response.json). */
export function alertView(row: AlertWithState, now: Date): Record<string, unknown> {
  const condition = parseCondition(row.condition);
  const channels = parseChannels(row.channels);
  const durationSeconds = Math.round(Number(row.duration_ms) / 1000);
  return {
    alert_id: row.id,
    name: row.name,
    condition: row.condition,
    metric: condition.metric,
    comparator: condition.comparator,
    threshold: condition.threshold,
    duration: durationSeconds === 0 ? null : spanOf(durationSeconds),
    duration_seconds: durationSeconds,
    severity: row.severity,
    channels: channels.list,
    ...(channels.webhook ? { webhook: webhookView(channels.webhook, now) } : {}),
    ...(channels.slack ? { slack: channels.slack } : {}),
    ...(channels.email ? { email: channels.email } : {}),
    scope: { account_id: row.scope_account_id, mode: row.scope_mode, endpoint: row.scope_endpoint },
    enabled: Boolean(row.enabled),
    state: {
      status: (row.state ?? 'inactive') as AlertState,
      since: iso(row.since),
      value: row.value,
      evaluated_at: iso(row.evaluated_at),
    },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The webhook destination as shown: the previous secret itself is never shown again, only until when it signs. */
function webhookView(webhook: NonNullable<StoredChannels['webhook']>, now: Date): Record<string, unknown> {
  const until = webhook.previous_secret?.until;
  return {
    url: webhook.url,
    payload_template: webhook.payload_template,
    signing_secret: webhook.signing_secret,
    previous_secret_expires_at: until !== undefined && Date.parse(until) > now.getTime() ? until : null,
  };
}

/** Seconds as the largest whole unit of the time-span format: 300 → 5m, 90 → 90s. */
function spanOf(seconds: number): string {
  for (const [unit, size] of [['w', 604_800], ['d', 86_400], ['h', 3600], ['m', 60]] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}
