import { createHash } from 'node:crypto';

/** SHA-256 in hex: the fixed-length key of URL columns (`url_hash`) and the content hashes of stored text. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
