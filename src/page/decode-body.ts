import { TextDecoder } from 'node:util';
import { detectCharset } from '../text/charset.js';

/**
 * Bytes → text in the encoding detectCharset settles on (byte-order mark, Content-Type charset,
 * in-document declaration, then sniffing). TextDecoder with Node's full ICU knows every WHATWG
 * encoding, and drops a byte-order mark that matches the encoding. Pure: the pool decodes the
 * pages it cleans (clean-page-task.ts), whose bytes reach it as a plain Uint8Array.
 */
export function decodeBody(body: Uint8Array, headerCharset: string | undefined): string {
  const { encoding } = detectCharset(body, headerCharset);
  if (encoding === 'windows-1252') return decodeWindows1252(body);
  return new TextDecoder(encoding).decode(body);
}

// Since 20.18.3, Node's TextDecoder decodes windows-1252 as latin1, so 0x80–0x9F come out as
// control characters instead of € ‘ ’ “ ” — … (nodejs/node#60888). This is the WHATWG mapping of
// those 32 bytes; every other byte is the code point of the same number in both encodings.
const WINDOWS_1252_C1 = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

function decodeWindows1252(body: Uint8Array): string {
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1').replace(/[\x80-\x9f]/g, (c) => String.fromCharCode(WINDOWS_1252_C1[c.charCodeAt(0) - 0x80]!));
}
