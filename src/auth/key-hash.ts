import { createHash, timingSafeEqual } from 'node:crypto';

/** API keys carry 256 bits of randomness, so a fast hash is enough: there is nothing to brute-force. */
export function hashKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
