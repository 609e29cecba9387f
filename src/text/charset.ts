/**
 * Which character encoding a fetched body is in. The evidence is weighed in the order browsers
 * use (WHATWG Encoding and HTML "determining the character encoding"): a byte-order mark, the
 * Content-Type charset, an XML declaration, a <meta> declaration near the start, and only then a
 * guess from the bytes themselves.
 */
import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { analyse } from 'chardet';

/** Where the encoding came from; 'default' means nothing pointed anywhere. */
export type CharsetSource = 'bom' | 'header' | 'xml' | 'meta' | 'utf8' | 'sniffed' | 'default';

export interface CharsetChoice {
  /** The WHATWG name of the encoding, as TextDecoder reports it (e.g. 'shift_jis'). */
  readonly encoding: string;
  readonly source: CharsetSource;
}

// The standard prescan stops at 1024 bytes; pages whose <head> opens with a long inline script,
// style or comment put their <meta charset> later, and scanning further costs next to nothing.
const PRESCAN_BYTES = 8192;
// chardet takes ~0.6 s per MB and runs on the worker's event loop; this much dense text is
// plenty for it to tell the encodings apart.
const SNIFF_SAMPLE_BYTES = 32 * 1024;
// chardet gives every multi-byte candidate 10 when it merely cannot rule it out; a guess that
// weak is no better than the windows-1252 default.
const MIN_SNIFF_CONFIDENCE = 20;

/** chardet's names for the encodings we trust it with, mapped to WHATWG labels. */
const SNIFFABLE: Readonly<Record<string, string>> = {
  'UTF-8': 'utf-8',
  Shift_JIS: 'shift_jis',
  'EUC-JP': 'euc-jp',
  GB18030: 'gb18030',
  Big5: 'big5',
  'EUC-KR': 'euc-kr',
  'KOI8-R': 'koi8-r',
  // WHATWG decodes every ISO-8859-1 label as windows-1252, a superset that browsers agree on.
  'ISO-8859-1': 'windows-1252',
  'windows-1252': 'windows-1252',
};

export function detectCharset(body: Uint8Array, headerCharset: string | undefined): CharsetChoice {
  const bom = bomEncoding(body);
  if (bom) return { encoding: bom, source: 'bom' };
  const header = headerCharset === undefined ? undefined : encodingFor(headerCharset);
  if (header) return { encoding: header, source: 'header' };
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, PRESCAN_BYTES)).toString('latin1');
  const xml = xmlDeclaration(head);
  if (xml) return { encoding: xml, source: 'xml' };
  const meta = prescanMeta(head);
  if (meta) return { encoding: meta, source: 'meta' };
  // Valid UTF-8 is almost never an accident in another encoding (and pure ASCII is both).
  if (isUtf8(body)) return { encoding: 'utf-8', source: 'utf8' };
  const sniffed = sniff(body);
  if (sniffed) return { encoding: sniffed, source: 'sniffed' };
  return { encoding: 'windows-1252', source: 'default' };
}

/** The WHATWG encoding a label names, or undefined when TextDecoder does not know it. */
function encodingFor(label: string): string | undefined {
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return undefined;
  }
}

function bomEncoding(body: Uint8Array): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return undefined;
}

/** XHTML served as XML names its encoding in <?xml … encoding="…"?>, which must open the document. */
function xmlDeclaration(head: string): string | undefined {
  const label = /^<\?xml\s[^>]*?\bencoding\s*=\s*["']([^"']+)["']/.exec(head)?.[1];
  return label === undefined ? undefined : declared(label);
}

/**
 * A document cannot describe itself as UTF-16 in ASCII-compatible bytes, so such a declaration
 * means UTF-8 (WHATWG); x-user-defined likewise falls back to windows-1252.
 */
function declared(label: string): string | undefined {
  const encoding = encodingFor(label);
  if (encoding === 'utf-16le' || encoding === 'utf-16be') return 'utf-8';
  if (encoding === 'x-user-defined') return 'windows-1252';
  return encoding;
}

// Comments are skipped whole, so a commented-out <meta> does not count; any other tag is read
// only to find <meta> ones.
const TAGS = /<!--[\s\S]*?-->|<meta[\s/]([^>]*)>/gi;
const ATTRIBUTES = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;

/** The WHATWG prescan, simplified: the first <meta> that declares a known encoding wins. */
function prescanMeta(head: string): string | undefined {
  for (const match of head.matchAll(TAGS)) {
    if (match[1] === undefined) continue;
    const attributes = new Map<string, string>();
    for (const [, name = '', ...values] of match[1].matchAll(ATTRIBUTES)) {
      const key = name.toLowerCase();
      // The first occurrence of an attribute counts, as in the HTML tokenizer.
      if (!attributes.has(key)) attributes.set(key, values.find((v) => v !== undefined) ?? '');
    }
    const charset = attributes.get('charset');
    const content = attributes.get('content');
    const label =
      charset !== undefined
        ? charset
        : attributes.get('http-equiv')?.toLowerCase() === 'content-type' && content !== undefined
          ? charsetFromContent(content)
          : undefined;
    const encoding = label ? declared(label) : undefined;
    if (encoding) return encoding;
  }
  return undefined;
}

/** The charset parameter inside a content="text/html; charset=…" value. */
function charsetFromContent(content: string): string | undefined {
  const match = /charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s;"']+))/i.exec(content);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

/** chardet's best guess among the encodings we trust it with, or undefined when unsure. */
function sniff(body: Uint8Array): string | undefined {
  for (const match of analyse(textSample(body))) {
    if (match.confidence < MIN_SNIFF_CONFIDENCE) return undefined;
    const encoding = SNIFFABLE[match.name];
    if (encoding) return encoding;
  }
  return undefined;
}

/**
 * The runs between '<' and '>' that contain non-ASCII bytes, joined by spaces. Markup and
 * ASCII-only scripts would otherwise drown the few bytes that tell encodings apart. Cutting at
 * '<' and '>' never splits a character: no supported multi-byte encoding uses them as a trail byte.
 */
function textSample(body: Uint8Array): Buffer {
  const parts: Uint8Array[] = [];
  let size = 0;
  let start = 0;
  for (let i = 0; i <= body.length && size < SNIFF_SAMPLE_BYTES; i++) {
    const byte = body[i];
    if (i < body.length && byte !== 0x3c && byte !== 0x3e) continue;
    const run = body.subarray(start, Math.min(i, start + SNIFF_SAMPLE_BYTES - size));
    if (run.some((b) => b >= 0x80)) {
      parts.push(run, SPACE);
      size += run.length + 1;
    }
    start = i + 1;
  }
  return Buffer.concat(parts);
}

const SPACE = Uint8Array.of(0x20);
