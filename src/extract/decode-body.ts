import { TextDecoder } from 'node:util';

/**
 * Bytes → text using the charset from the Content-Type header, else a byte-order mark, else a
 * <meta charset> or http-equiv declaration in the first kilobytes, else UTF-8. TextDecoder (with
 * Node's full ICU) knows the WHATWG labels, so Shift_JIS, GBK, windows-1252 ... all decode.
 */
const META_CHARSET = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i;

export function decodeBody(body: Buffer, headerCharset: string | undefined): string {
  const label = bomCharset(body) ?? headerCharset ?? metaCharset(body) ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(body);
}

function bomCharset(body: Buffer): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return undefined;
}

function metaCharset(body: Buffer): string | undefined {
  // latin1 maps bytes 1:1, so ASCII markup is readable whatever the real encoding is.
  return META_CHARSET.exec(body.subarray(0, 4096).toString('latin1'))?.[1];
}
