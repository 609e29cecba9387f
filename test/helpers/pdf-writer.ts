import { createHash } from 'node:crypto';

/**
 * A small PDF writer for tests: pages of text placed where the test says, in Helvetica or
 * Helvetica-Bold (the standard fonts every reader has, so nothing is embedded), with any
 * characters: each font's encoding gives the text's non-ASCII characters codes of their own and a
 * ToUnicode map says what they are, which is what text extraction reads. Every glyph is 0.5 em
 * wide, so a test knows exactly where a line ends: width = 0.5 × size × characters. Also
 * metadata (the information dictionary, the catalog's /Lang), image-only pages, and encryption
 * by the standard security handler (revision 2, RC4 with a 40-bit key).
 *
 * Chinese text is set as old Chinese PDFs set it: in STSong-Light, not embedded, through the
 * predefined CMap UniGB-UCS2-H, so only a reader that has Adobe's CMaps can tell which characters
 * the codes are (every glyph 1 em wide).
 */
export interface PdfText {
  text: string;
  /** Left end, in points from the page's left edge. */
  x: number;
  /** Baseline, in points from the page's top edge. */
  y: number;
  /** Points; 11 by default. */
  size?: number;
  bold?: boolean;
  /** Set in STSong-Light through UniGB-UCS2-H (see above). */
  chinese?: boolean;
}

export interface PdfPage {
  texts?: PdfText[];
  /** Draws a picture over most of the page (a scanned page). */
  image?: boolean;
  /** Points; A4 (595 × 842) by default. */
  width?: number;
  height?: number;
}

export interface PdfSpec {
  pages: PdfPage[];
  /** The information dictionary: Title, Author, Subject, CreationDate ("D:20240102120000+01'00'"), ModDate, … */
  info?: Record<string, string>;
  /** The catalog's /Lang. */
  lang?: string;
  /** Encrypts the document; with userPassword "" anyone may open it (an owner password restricts only permissions). */
  encryption?: { userPassword: string; ownerPassword: string };
}

/** Width of one character, in ems, in every font of these PDFs. */
export const CHAR_WIDTH = 0.5;

/** Width in points of `text` at `size`. */
export function textWidth(text: string, size = 11): number {
  return [...text].length * CHAR_WIDTH * size;
}

export function writePdf(spec: PdfSpec): Buffer {
  const codes = characterCodes(spec);
  const writer = new Writer(spec.encryption);
  const catalog = writer.reserve();
  const pagesRoot = writer.reserve();
  const toUnicode = writer.reserve();
  const fonts = { regular: writer.reserve(), bold: writer.reserve() };
  const chinese = spec.pages.some((page) => page.texts?.some((t) => t.chinese)) ? { font: writer.reserve(), cid: writer.reserve(), descriptor: writer.reserve() } : null;
  const image = spec.pages.some((page) => page.image) ? writer.reserve() : null;
  const info = spec.info ? writer.reserve() : null;
  const pages = spec.pages.map(() => ({ page: writer.reserve(), content: writer.reserve() }));

  writer.object(catalog, (num) => `<< /Type /Catalog /Pages ${pagesRoot} 0 R${spec.lang ? ` /Lang ${writer.string(num, Buffer.from(spec.lang, 'latin1'))}` : ''} >>`);
  writer.object(pagesRoot, () => `<< /Type /Pages /Kids [${pages.map((p) => `${p.page} 0 R`).join(' ')}] /Count ${pages.length} >>`);
  writer.stream(toUnicode, '', Buffer.from(toUnicodeMap(codes), 'latin1'));
  const differences = [...codes.entries()].filter(([char]) => char.codePointAt(0)! > 126).map(([char, code]) => `${code} /uni${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' ');
  for (const [name, num] of [['Helvetica', fonts.regular], ['Helvetica-Bold', fonts.bold]] as const) {
    writer.object(num, () => `<< /Type /Font /Subtype /Type1 /BaseFont /${name} /FirstChar 32 /LastChar 255 /Widths [${Array(224).fill(CHAR_WIDTH * 1000).join(' ')}] /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [${differences}] >> /ToUnicode ${toUnicode} 0 R >>`);
  }
  if (chinese !== null) {
    writer.object(chinese.font, () => `<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /UniGB-UCS2-H /DescendantFonts [${chinese.cid} 0 R] >>`);
    writer.object(chinese.cid, () => `<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light /CIDSystemInfo << /Registry (Adobe) /Ordering (GB1) /Supplement 4 >> /FontDescriptor ${chinese.descriptor} 0 R /DW 1000 >>`);
    writer.object(chinese.descriptor, () => '<< /Type /FontDescriptor /FontName /STSong-Light /Flags 6 /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 880 /StemV 80 >>');
  }
  if (image !== null) writer.stream(image, '/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8', Buffer.from([0x20, 0xe0, 0xe0, 0x20]));
  if (info !== null) {
    writer.object(info, (num) => `<< ${Object.entries(spec.info!).map(([key, value]) => `/${key} ${writer.string(num, utf16(value))}`).join(' ')} >>`);
  }
  spec.pages.forEach((page, i) => {
    const { page: pageNum, content } = pages[i]!;
    const width = page.width ?? 595;
    const height = page.height ?? 842;
    const resources = `/Font << /F1 ${fonts.regular} 0 R /F2 ${fonts.bold} 0 R${chinese ? ` /F3 ${chinese.font} 0 R` : ''} >>${image !== null ? ` /XObject << /Im1 ${image} 0 R >>` : ''}`;
    writer.object(pageNum, () => `<< /Type /Page /Parent ${pagesRoot} 0 R /MediaBox [0 0 ${width} ${height}] /Resources << ${resources} >> /Contents ${content} 0 R >>`);
    let ops = '';
    if (page.image) ops += `q ${width - 100} 0 0 ${height - 100} 50 50 cm /Im1 Do Q\n`;
    for (const text of page.texts ?? []) {
      if (text.chinese) {
        ops += `BT /F3 ${text.size ?? 11} Tf 1 0 0 1 ${text.x} ${height - text.y} Tm <${Buffer.from(text.text, 'utf16le').swap16().toString('hex')}> Tj ET\n`;
        continue;
      }
      const encoded = Buffer.from([...text.text].map((char) => {
        const code = codes.get(char);
        if (code === undefined) throw new Error(`no code for ${char}`);
        return code;
      }));
      ops += `BT /${text.bold ? 'F2' : 'F1'} ${text.size ?? 11} Tf 1 0 0 1 ${text.x} ${height - text.y} Tm <${encoded.toString('hex')}> Tj ET\n`;
    }
    writer.stream(content, '', Buffer.from(ops, 'latin1'));
  });
  return writer.finish(catalog, info);
}

/** Printable ASCII keeps its code; every other character gets one of 128–255, in order of appearance. */
function characterCodes(spec: PdfSpec): Map<string, number> {
  const codes = new Map<string, number>();
  for (let c = 32; c <= 126; c++) codes.set(String.fromCharCode(c), c);
  let next = 128;
  for (const page of spec.pages) for (const text of page.texts ?? []) for (const char of text.chinese ? '' : text.text) {
    if (codes.has(char)) continue;
    if (next > 255) throw new Error('more than 128 non-ASCII characters in one test PDF');
    codes.set(char, next++);
  }
  return codes;
}

function toUnicodeMap(codes: Map<string, number>): string {
  const entries = [...codes.entries()].map(([char, code]) => `<${code.toString(16).padStart(2, '0')}> <${Buffer.from(char, 'utf16le').swap16().toString('hex')}>`);
  const chunks: string[] = [];
  // At most 100 mappings per bfchar section.
  for (let i = 0; i < entries.length; i += 100) {
    const part = entries.slice(i, i + 100);
    chunks.push(`${part.length} beginbfchar\n${part.join('\n')}\nendbfchar`);
  }
  return [
    '/CIDInit /ProcSet findresource begin', '12 dict begin', 'begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def', '/CMapName /Test-UCS def', '/CMapType 2 def',
    '1 begincodespacerange', '<00> <ff>', 'endcodespacerange', ...chunks, 'endcmap', 'CMapName currentdict /CMap defineresource pop', 'end', 'end',
  ].join('\n');
}

/** A text string as UTF-16BE with its byte-order mark, which PDF text strings may be. */
function utf16(text: string): Buffer {
  return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
}

const PASSWORD_PADDING = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

/** Objects, strings and streams, encrypted when the document is, then the cross-reference table. */
class Writer {
  private next = 1;
  private readonly bodies = new Map<number, Buffer>();
  private readonly security: { key: Buffer; owner: Buffer; user: Buffer; permissions: number; id: Buffer } | null;

  constructor(encryption: PdfSpec['encryption']) {
    if (!encryption) {
      this.security = null;
      return;
    }
    const id = createHash('md5').update('test pdf').digest();
    const permissions = -44;
    const ownerKey = md5(pad(encryption.ownerPassword)).subarray(0, 5);
    const owner = rc4(ownerKey, pad(encryption.userPassword));
    const p = Buffer.alloc(4);
    p.writeInt32LE(permissions);
    const key = md5(Buffer.concat([pad(encryption.userPassword), owner, p, id])).subarray(0, 5);
    this.security = { key, owner, user: rc4(key, PASSWORD_PADDING), permissions, id };
  }

  reserve(): number {
    return this.next++;
  }

  object(num: number, body: (num: number) => string): void {
    this.bodies.set(num, Buffer.from(`${num} 0 obj\n${body(num)}\nendobj\n`, 'latin1'));
  }

  stream(num: number, dictionary: string, data: Buffer): void {
    const bytes = this.encrypt(num, data);
    this.bodies.set(num, Buffer.concat([
      Buffer.from(`${num} 0 obj\n<< ${dictionary} /Length ${bytes.length} >>\nstream\n`, 'latin1'), bytes, Buffer.from('\nendstream\nendobj\n', 'latin1'),
    ]));
  }

  /** A string of object `num`, as a hex string. */
  string(num: number, data: Buffer): string {
    return `<${this.encrypt(num, data).toString('hex')}>`;
  }

  finish(catalog: number, info: number | null): Buffer {
    const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xE2\xE3\xCF\xD3\n', 'latin1')];
    let offset = parts[0]!.length;
    let encryptNum: number | null = null;
    if (this.security) {
      encryptNum = this.reserve();
      const { owner, user, permissions } = this.security;
      this.bodies.set(encryptNum, Buffer.from(`${encryptNum} 0 obj\n<< /Filter /Standard /V 1 /R 2 /O <${owner.toString('hex')}> /U <${user.toString('hex')}> /P ${permissions} >>\nendobj\n`, 'latin1'));
    }
    const offsets: number[] = [];
    for (let num = 1; num < this.next; num++) {
      const body = this.bodies.get(num)!;
      offsets[num] = offset;
      parts.push(body);
      offset += body.length;
    }
    const xref = ['xref', `0 ${this.next}`, '0000000000 65535 f\r', ...offsets.slice(1).map((o) => `${String(o).padStart(10, '0')} 00000 n\r`)].join('\n');
    const id = this.security ? ` /ID [<${this.security.id.toString('hex')}> <${this.security.id.toString('hex')}>]` : '';
    const trailer = `trailer\n<< /Size ${this.next} /Root ${catalog} 0 R${info !== null ? ` /Info ${info} 0 R` : ''}${encryptNum !== null ? ` /Encrypt ${encryptNum} 0 R` : ''}${id} >>\nstartxref\n${offset}\n%%EOF\n`;
    parts.push(Buffer.from(`${xref}\n${trailer}`, 'latin1'));
    return Buffer.concat(parts);
  }

  private encrypt(num: number, data: Buffer): Buffer {
    if (!this.security) return data;
    const objectKey = md5(Buffer.concat([this.security.key, Buffer.from([num & 0xff, (num >> 8) & 0xff, (num >> 16) & 0xff, 0, 0])])).subarray(0, 10);
    return rc4(objectKey, data);
  }
}

function pad(password: string): Buffer {
  return Buffer.concat([Buffer.from(password, 'latin1'), PASSWORD_PADDING]).subarray(0, 32);
}

function md5(data: Buffer): Buffer {
  return createHash('md5').update(data).digest();
}

/** RC4, which OpenSSL 3 no longer offers by default: a PDF's revision 2 encryption needs it. */
function rc4(key: Buffer, data: Buffer): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 0xff]!;
  }
  return out;
}
