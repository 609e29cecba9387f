/**
 * Webhook signatures (pure). Every webhook request carries
 *
 *   X-SEV-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, `${t}.${rawBody}`)>
 *
 * The secret is the alert's whole signing secret string ('whsec_…') as UTF-8 bytes; the body
 * is the raw bytes received, before any JSON parsing. Signing the timestamp with the body lets a
 * receiver refuse a replayed request (an old `t`) as well as a modified one. A receiver may see
 * several v1= values (reserved for rotating a secret): one matching is enough.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-SEV-Signature';
/** How far (seconds) a signature's timestamp may be from the receiver's clock, either way. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

function digest(secret: string, rawBody: string, timestampSeconds: number): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`, 'utf8').digest('hex');
}

/**
 * The X-SEV-Signature value for a body sent at `timestampSeconds` (Unix seconds): one `v1=` per
 * secret, so that while a rotated secret is still honoured a receiver holding either verifies.
 */
export function signPayload(secrets: string | readonly string[], rawBody: string, timestampSeconds: number): string {
  const t = Math.floor(timestampSeconds);
  return [`t=${t}`, ...[secrets].flat().map((secret) => `v1=${digest(secret, rawBody, t)}`)].join(',');
}

/**
 * Whether `header` is a valid signature of `rawBody` with `secret`, made within
 * `toleranceSeconds` of `nowSeconds` (older and future timestamps are refused). The digests
 * are compared in constant time.
 */
export function verifySignature(secret: string, rawBody: string, header: string, nowSeconds: number, toleranceSeconds = DEFAULT_TOLERANCE_SECONDS): boolean {
  let t: number | undefined;
  const candidates: string[] = [];
  for (const item of header.split(',')) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,15}$/.test(value)) t = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) candidates.push(value.toLowerCase());
  }
  if (t === undefined || candidates.length === 0) return false;
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(digest(secret, rawBody, t), 'hex');
  let match = false;
  // Every candidate is compared, so the time taken does not tell which one matched.
  for (const candidate of candidates) match = timingSafeEqual(expected, Buffer.from(candidate, 'hex')) || match;
  return match;
}

/** A new signing secret: 'whsec_' and 32 random bytes in base64url. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
