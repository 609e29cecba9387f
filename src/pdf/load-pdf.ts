import { createRequire } from 'node:module';
import path from 'node:path';
import type { PageText, TextRun } from './page-text.js';
import type { PdfInfo } from './pdf-metadata.js';

/**
 * A PDF's text and metadata read with pdf.js (pdfjs-dist's legacy build, the one made for Node).
 * pdf.js parses in this thread (a Piscina thread: the pool's time and memory limits stop a PDF
 * that runs away), with no font faces, no eval and no network: only the bundled CMaps (the
 * character maps CJK fonts name) and standard font metrics are read, from the package.
 *
 * Every page's text runs are put into the page's display coordinates (its /Rotate and crop box
 * applied, y growing downward) and then turned so that the direction most of its text runs in is
 * left to right: a landscape table drawn sideways reads as one drawn upright. Runs at another
 * angle (watermarks, margin notes along the edge) are left out.
 */
export interface LoadedPdf {
  pageCount: number;
  info: PdfInfo;
  pages: PageText[];
}

export type LoadOutcome = LoadedPdf | { failed: string };

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;

let pdfjs: Promise<PdfJs> | undefined;

/** pdf.js, loaded on the first PDF a thread reads: threads that never read one do not pay for it. */
function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= (async () => {
    // With its worker's code loaded in this thread, pdf.js parses here instead of starting a worker of its own.
    await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })();
  return pdfjs;
}

const PACKAGE_DIR = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const CMAPS = `${path.join(PACKAGE_DIR, 'cmaps')}${path.sep}`;
const STANDARD_FONTS = `${path.join(PACKAGE_DIR, 'standard_fonts')}${path.sep}`;

/** Runs within this angle of a page's main direction are its text. */
const ANGLE_TOLERANCE = 0.1;

/**
 * @param maxPages a PDF of more pages is refused before any page is read.
 * @returns the PDF's pages, or why it cannot be read (encrypted, broken, too long).
 */
export async function loadPdf(data: Uint8Array, maxPages: number): Promise<LoadOutcome> {
  const { getDocument } = await loadPdfJs();
  const task = getDocument({
    // pdf.js refuses a Buffer and may take over the bytes it is given: it gets a copy of its own.
    data: Uint8Array.from(data),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
    cMapUrl: CMAPS,
    cMapPacked: true,
    standardFontDataUrl: STANDARD_FONTS,
    stopAtErrors: false,
  });
  let document: PdfDocument;
  try {
    document = await task.promise;
  } catch (error) {
    await task.destroy();
    return { failed: openFailure(error) };
  }
  try {
    const pageCount = document.numPages;
    if (pageCount === 0) return { failed: 'PDF is broken: it has no pages' };
    if (pageCount > maxPages) return { failed: `PDF too long: ${pageCount} pages, more than the ${maxPages} read` };
    const info = await documentInfo(document);
    const pages: PageText[] = [];
    let unreadable: unknown = null;
    for (let number = 1; number <= pageCount; number++) {
      try {
        pages.push(await pageText(document, number));
      } catch (error) {
        // One damaged page does not lose the others.
        unreadable ??= error;
        pages.push({ number, width: 0, height: 0, runs: [] });
      }
    }
    if (pageCount > 0 && unreadable !== null && pages.every((page) => page.runs.length === 0)) return { failed: `PDF is broken: ${message(unreadable)}` };
    return { pageCount, info, pages };
  } catch (error) {
    return { failed: `PDF is broken: ${message(error)}` };
  } finally {
    await document.destroy();
  }
}

function openFailure(error: unknown): string {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'PasswordException') return 'PDF is encrypted: it needs a password to open';
  return `PDF is broken: ${message(error)}`;
}

function message(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, ' ').trim().slice(0, 200) || 'unreadable';
}

async function documentInfo(document: PdfDocument): Promise<PdfInfo> {
  // Metadata that cannot be read leaves the text readable.
  const metadata = await document.getMetadata().catch(() => null);
  const info = (metadata?.info ?? {}) as Record<string, unknown>;
  const xmp: Record<string, unknown> = {};
  const properties = (metadata?.metadata ?? []) as Iterable<[string, unknown]>;
  for (const [name, value] of properties) xmp[name.toLowerCase()] = value;
  const language = typeof info.Language === 'string' ? info.Language : null;
  return { info, xmp, language };
}

async function pageText(document: PdfDocument, number: number): Promise<PageText> {
  const page = await document.getPage(number);
  try {
    const viewport = page.getViewport({ scale: 1 });
    const content = await page.getTextContent();
    const placed: Array<{ run: Omit<TextRun, 'x' | 'y'>; x: number; y: number; angle: number }> = [];
    for (const item of content.items) {
      if (!('str' in item) || item.str === '') continue;
      const m = multiply(viewport.transform, item.transform);
      placed.push({
        run: { text: item.str, width: item.width, size: Math.hypot(m[2]!, m[3]!), font: item.fontName, rtl: item.dir === 'rtl' },
        x: m[4]!,
        y: m[5]!,
        angle: Math.atan2(m[1]!, m[0]!),
      });
    }
    const turn = mainDirection(placed);
    const [cos, sin] = [Math.round(Math.cos(turn)), Math.round(Math.sin(turn))];
    // Turned by -turn: the main direction becomes left to right.
    const rotate = (x: number, y: number): [number, number] => [x * cos + y * sin, -x * sin + y * cos];
    const corners = [rotate(0, 0), rotate(viewport.width, 0), rotate(0, viewport.height), rotate(viewport.width, viewport.height)];
    const left = Math.min(...corners.map((c) => c[0]));
    const upper = Math.min(...corners.map((c) => c[1]));
    const runs: TextRun[] = [];
    for (const { run, x, y, angle } of placed) {
      if (Math.abs(normalizeAngle(angle - turn)) > ANGLE_TOLERANCE) continue;
      const [rx, ry] = rotate(x, y);
      runs.push({ ...run, x: rx - left, y: ry - upper });
    }
    const width = Math.max(...corners.map((c) => c[0])) - left;
    const height = Math.max(...corners.map((c) => c[1])) - upper;
    return { number, width, height, runs };
  } finally {
    page.cleanup();
  }
}

/** The quarter turn most of the page's characters are written in (0 for upright text). */
function mainDirection(placed: ReadonlyArray<{ run: { text: string }; angle: number }>): number {
  const chars = new Map<number, number>();
  for (const { run, angle } of placed) {
    const quarter = Math.round(angle / (Math.PI / 2));
    chars.set(quarter, (chars.get(quarter) ?? 0) + run.text.length);
  }
  let best = 0;
  let most = -1;
  for (const [quarter, count] of chars) {
    if (count > most || (count === most && quarter === 0)) {
      best = quarter;
      most = count;
    }
  }
  return best * (Math.PI / 2);
}

function normalizeAngle(angle: number): number {
  return Math.atan2(Math.sin(angle), Math.cos(angle));
}

/** The affine transform m1 × m2 (PDF's [a b c d e f] form). */
function multiply(m1: readonly number[], m2: readonly number[]): number[] {
  const [a1, b1, c1, d1, e1, f1] = m1 as [number, number, number, number, number, number];
  const [a2, b2, c2, d2, e2, f2] = m2 as [number, number, number, number, number, number];
  return [
    a1 * a2 + c1 * b2,
    b1 * a2 + d1 * b2,
    a1 * c2 + c1 * d2,
    b1 * c2 + d1 * d2,
    a1 * e2 + c1 * f2 + e1,
    b1 * e2 + d1 * f2 + f1,
  ];
}
