import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * The literal format of a secret: `sev_<kind>_<body><check>`.
 *  - kind says what the key is for: `live`, `test` (sandbox) or `master`, so a leaked key tells
 *    at a glance how much it matters, and a secret scanner can match `sev_(live|test|master)_`.
 *  - body is 256 random bits in base62 (43 characters): no punctuation, so a double click selects it.
 *  - check is a CRC-32 of everything before it (6 base62 characters): a scanner can confirm a hit
 *    offline, and the service rejects a mistyped or truncated key without a database lookup.
 */
export const KEY_KINDS = ['live', 'test', 'master'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 43; // 62^43 > 2^256
const CHECK_LENGTH = 6; // 62^6 > 2^32
const FORMAT = /^sev_(live|test|master)_([0-9A-Za-z]{49})$/;

function base62(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
}

function checksum(text: string): string {
  return base62(BigInt(crc32(text)), CHECK_LENGTH);
}

export function generateKey(kind: KeyKind): string {
  const head = `sev_${kind}_${base62(BigInt(`0x${randomBytes(32).toString('hex')}`), BODY_LENGTH)}`;
  return head + checksum(head);
}

/** The kind of a well-formed key, or undefined when the text cannot be one of our keys. */
export function parseKey(secret: string): KeyKind | undefined {
  const match = FORMAT.exec(secret);
  if (!match) return undefined;
  const head = secret.slice(0, -CHECK_LENGTH);
  return checksum(head) === secret.slice(-CHECK_LENGTH) ? (match[1] as KeyKind) : undefined;
}

/** What a key record shows of its secret: enough to tell keys apart, far too little to use. */
export function keyHint(secret: string): string {
  return `${secret.slice(0, secret.indexOf('_', 4) + 1)}…${secret.slice(-4)}`;
}

/** Identifier of a record (key, account): public, so 96 random bits are plenty. */
export function randomId(prefix: string): string {
  return `${prefix}_${base62(BigInt(`0x${randomBytes(12).toString('hex')}`), 17)}`;
}
