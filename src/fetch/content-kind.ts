/**
 * Which responses we extract from: HTML (parsed and cleaned), plain text (kept as it is) and PDF
 * (its text laid out again, src/pdf). Everything else is refused with a reason naming the type.
 * A missing or meaningless Content-Type is sniffed from the first bytes, as browsers do (WHATWG
 * MIME Sniffing). A body that starts with the PDF signature is a PDF whatever the type says
 * (servers send PDFs as application/octet-stream, or as text/html by mistake); a generic binary
 * type is read only when its body is one.
 */

export type ContentKind = 'html' | 'text' | 'pdf';

export type ContentClass = { readonly kind: ContentKind } | { readonly kind: 'refused'; readonly reason: string };

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/x-markdown']);
const PDF_TYPES = new Set(['application/pdf', 'application/x-pdf']);
// Types that say "some file": a download whose body may be a PDF.
const BINARY_TYPES = new Set(['application/octet-stream', 'binary/octet-stream', 'application/download', 'application/x-download', 'application/force-download']);
// Generic XML can be XHTML (served by old CMSs and static generators) or anything else.
const XML_TYPES = new Set(['application/xml', 'text/xml']);
// Headers that say nothing, which WHATWG treats like a missing one.
const UNKNOWN_TYPES = new Set(['', 'unknown/unknown', 'application/unknown', '*/*']);

// WHATWG sniffing reads a "resource header" of at most 1445 bytes; the patterns need fewer.
const SNIFF_BYTES = 1024;

const HTML = { kind: 'html' } as const;
const TEXT = { kind: 'text' } as const;
const PDF = { kind: 'pdf' } as const;
const PDF_SIGNATURE = Buffer.from('%PDF-');

/** What the media type alone decides; undefined when only the body can tell (no type, XML, a generic binary type). */
export function classifyMime(mime: string): ContentClass | undefined {
  if (HTML_TYPES.has(mime)) return HTML;
  if (TEXT_TYPES.has(mime)) return TEXT;
  if (PDF_TYPES.has(mime)) return PDF;
  if (XML_TYPES.has(mime) || UNKNOWN_TYPES.has(mime) || BINARY_TYPES.has(mime)) return undefined;
  return refused(mime);
}

/**
 * @param mime the media type without parameters, lower case ('' when missing).
 * @param head the first bytes of the (decompressed) body; more than SNIFF_BYTES are ignored.
 */
export function classifyContent(mime: string, head: Uint8Array): ContentClass {
  const byType = classifyMime(mime);
  if (byType?.kind === 'refused') return byType;
  const start = Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, SNIFF_BYTES));
  if (start.subarray(0, PDF_SIGNATURE.length).equals(PDF_SIGNATURE)) return PDF;
  if (byType) return byType;
  if (BINARY_TYPES.has(mime)) return refused(mime);
  if (XML_TYPES.has(mime)) return isXhtml(start) ? HTML : refused(mime);
  return sniff(start);
}

function refused(mime: string, sniffed = false): ContentClass {
  return { kind: 'refused', reason: `unsupported content type: ${mime}${sniffed ? ' (sniffed)' : ''}` };
}

/** The patterns of WHATWG "rules for identifying an unknown MIME type" (scriptable types only). */
const HTML_START = /^[\t\n\f\r ]*<(?:!doctype html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p|!--)[ >]/i;
const BINARY_SIGNATURES: ReadonlyArray<readonly [Buffer, string]> = [
  [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'image/png'],
  [Buffer.from([0xff, 0xd8, 0xff]), 'image/jpeg'],
  [Buffer.from('GIF8'), 'image/gif'],
  [Buffer.from([0x50, 0x4b, 0x03, 0x04]), 'application/zip'],
  [Buffer.from([0x1f, 0x8b, 0x08]), 'application/gzip'],
];

function sniff(start: Buffer): ContentClass {
  // A UTF-16 or UTF-8 byte-order mark marks text, whatever bytes follow it.
  const bomLength = byteOrderMarkLength(start);
  if (bomLength === 2) return TEXT;
  const text = start.subarray(bomLength).toString('latin1');
  if (HTML_START.test(text)) return HTML;
  if (/^[\t\n\f\r ]*<\?xml/.test(text)) return isXhtml(start.subarray(bomLength)) ? HTML : refused('application/xml', true);
  for (const [signature, type] of BINARY_SIGNATURES) {
    if (start.subarray(0, signature.length).equals(signature)) return refused(type, true);
  }
  return start.some(isBinaryByte) ? refused('application/octet-stream', true) : TEXT;
}

/** 3 for a UTF-8 byte-order mark, 2 for UTF-16, 0 for none. */
function byteOrderMarkLength(start: Buffer): number {
  if (start[0] === 0xef && start[1] === 0xbb && start[2] === 0xbf) return 3;
  if ((start[0] === 0xfe && start[1] === 0xff) || (start[0] === 0xff && start[1] === 0xfe)) return 2;
  return 0;
}

/** Control bytes that never occur in text (WHATWG "binary data byte"). */
function isBinaryByte(byte: number): boolean {
  return byte <= 0x08 || byte === 0x0b || (byte >= 0x0e && byte <= 0x1a) || (byte >= 0x1c && byte <= 0x1f);
}

/** An XML document whose root, past declaration, comments and doctype, is <html>. */
function isXhtml(start: Buffer): boolean {
  const text = start.toString('latin1').replace(/^\xEF\xBB\xBF/, '');
  return /^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!doctype\s+html[\s>]|<html[\s>])/i.test(text);
}
