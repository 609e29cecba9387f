import { parseDate } from '../html/metadata/dates.js';
import { normalizeLanguageTag } from '../text/language.js';

/**
 * A PDF's metadata → the metadata of an extraction. The document information dictionary first
 * (what most producers fill in), its XMP metadata stream where the dictionary says nothing.
 * Dates keep the offset the PDF states, as web pages' dates do (src/html/metadata/dates.ts).
 */
export interface PdfInfo {
  /** The information dictionary's entries (Title, Author, Subject, CreationDate, ModDate, …), as pdf.js reads them. */
  info: Record<string, unknown>;
  /** XMP properties by qualified name in lower case (dc:title, dc:creator, xmp:createdate, …). */
  xmp: Record<string, unknown>;
  /** The catalog's /Lang: the language the document declares. */
  language: string | null;
}

export interface PdfMetadata {
  title: string | null;
  author: string | null;
  description: string | null;
  createdDate: string | null;
  modifiedDate: string | null;
  language: string | null;
}

export function pdfMetadata({ info, xmp, language }: PdfInfo): PdfMetadata {
  return {
    title: cleanTitle(text(info.Title) ?? text(xmp['dc:title'])),
    author: text(info.Author) ?? text(xmp['dc:creator']),
    description: text(info.Subject) ?? text(xmp['dc:description']),
    createdDate: pdfDate(info.CreationDate) ?? isoDate(xmp['xmp:createdate']),
    modifiedDate: pdfDate(info.ModDate) ?? isoDate(xmp['xmp:modifydate']),
    language: normalizeLanguageTag(language),
  };
}

/** A non-empty string, whitespace collapsed; an XMP list (authors) joined with ", ". */
function text(value: unknown): string | null {
  if (Array.isArray(value)) return text(value.filter((v) => typeof v === 'string').join(', '));
  if (typeof value !== 'string') return null;
  // Control characters are what a PDF string decoded in the wrong encoding leaves behind.
  const clean = value.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return clean === '' ? null : clean;
}

/**
 * Producers' placeholders are no title: "untitled", a file name, "Microsoft Word - report.docx"
 * (the name without the application and extension is).
 */
function cleanTitle(title: string | null): string | null {
  if (title === null) return null;
  const stripped = title.replace(/^Microsoft (?:Word|PowerPoint|Excel) - /i, '').replace(/\.(?:docx?|pptx?|xlsx?|odt|rtf|txt|pdf|tex|indd)$/i, '').trim();
  if (stripped === '' || /^(?:untitled|unknown|document\d*|title)$/i.test(stripped)) return null;
  return stripped;
}

/** D:YYYYMMDDHHmmSSOHH'mm' (every part after the year optional, PDF 32000-1 7.9.4). */
const PDF_DATE = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*(?:([Zz])|([+-])(\d{2})'?(\d{2})?'?)?/;

/** A PDF date as ISO 8601: with its offset when it states one, date-only when it has no time. */
export function pdfDate(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = PDF_DATE.exec(value.trim());
  if (!match) return null;
  const [, year, month = '01', day = '01', hour, minute = '00', second = '00', utc, sign, offsetHours, offsetMinutes = '00'] = match;
  if (hour === undefined) return parseDate(`${year}-${month}-${day}`);
  const zone = utc ? 'Z' : sign ? `${sign}${offsetHours}:${offsetMinutes}` : '';
  return parseDate(`${year}-${month}-${day}T${hour}:${minute}:${second}${zone}`);
}

function isoDate(value: unknown): string | null {
  return typeof value === 'string' ? parseDate(value) : null;
}
