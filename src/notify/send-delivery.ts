/**
 * One try of one stored delivery, whatever its channel. The body is built again from the stored
 * notification on every try (the same bytes each time); the webhook signature is made anew with
 * the time of the try, so a retry hours later still passes a receiver's timestamp tolerance.
 */
import type { Config } from '../config.js';
import { VERSION } from '../version.js';
import type { DeliveryRow } from './deliveries.repository.js';
import type { EmailSender } from './email-sender.js';
import { postNotification, type AttemptResult } from './http-post.js';
import { emailMessage, renderWebhookPayload, slackPayload, type ChannelTarget, type Notification } from './notification.js';
import { SIGNATURE_HEADER, signPayload } from './signature.js';

export const NOTIFICATION_USER_AGENT = `sev-notifications/${VERSION.replace(/^v/, '')}`;

export interface SendDeps {
  config: Pick<Config, 'fetch' | 'notify'>;
  /** Undefined when SMTP is not configured. */
  email: EmailSender | undefined;
  /** Unix seconds of the signature; the clock by default. */
  nowSeconds?: () => number;
}

/** The HTTP headers of a webhook try (the signature over `body` at `timestampSeconds`). */
export function webhookHeaders(deliveryId: string, n: Notification, secrets: string | readonly string[], body: string, timestampSeconds: number): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': NOTIFICATION_USER_AGENT,
    'X-SEV-Event': n.event,
    'X-SEV-Delivery': deliveryId,
    // The same on every try of the delivery: a receiver that saw it already can answer 2xx and do nothing.
    'Idempotency-Key': deliveryId,
    [SIGNATURE_HEADER]: signPayload(secrets, body, timestampSeconds),
  };
}

/** The secrets a webhook try is signed with: the current one, and a rotated one until it lapses. */
export function signingSecrets(target: Extract<ChannelTarget, { type: 'webhook' }>, nowSeconds: number): string[] {
  const previous = target.previous_secret;
  const honoured = previous !== undefined && Date.parse(previous.until) / 1000 > nowSeconds;
  return honoured ? [target.signing_secret, previous.secret] : [target.signing_secret];
}

/** Makes one try; never throws (a failure is an AttemptResult, permanent when no retry can help). */
export async function sendDelivery(row: Pick<DeliveryRow, 'id' | 'target' | 'notification'>, deps: SendDeps): Promise<AttemptResult> {
  let target: ChannelTarget;
  let n: Notification;
  try {
    target = JSON.parse(row.target) as ChannelTarget;
    n = JSON.parse(row.notification) as Notification;
  } catch (error) {
    return { ok: false, permanent: true, statusCode: null, error: `stored delivery is unreadable: ${(error as Error).message}` };
  }
  const post = { allowedCidrs: deps.config.fetch.allowedCidrs, timeoutMs: deps.config.notify.timeoutMs };
  switch (target.type) {
    case 'webhook': {
      let body: string;
      try {
        body = renderWebhookPayload(n, target.payload_template);
      } catch (error) {
        return { ok: false, permanent: true, statusCode: null, error: (error as Error).message };
      }
      const now = deps.nowSeconds?.() ?? Math.floor(Date.now() / 1000);
      return postNotification(target.url, body, webhookHeaders(row.id, n, signingSecrets(target, now), body, now), post);
    }
    case 'slack':
      return postNotification(target.webhook_url, JSON.stringify(slackPayload(n)), {
        'Content-Type': 'application/json',
        'User-Agent': NOTIFICATION_USER_AGENT,
      }, post);
    case 'email': {
      if (!deps.email) return { ok: false, permanent: true, statusCode: null, error: 'email is not configured on this service (SMTP_HOST is unset)' };
      return deps.email.send({ ...emailMessage(n), to: target.to, deliveryId: row.id, event: n.event });
    }
    default:
      return { ok: false, permanent: true, statusCode: null, error: `unknown channel ${(target as { type?: unknown }).type as string}` };
  }
}
