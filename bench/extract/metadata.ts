import { performance } from 'node:perf_hooks';
import { parseHtml } from '../../src/html/dom.js';
import { cleanHtml } from '../../src/html/clean-html.js';
import { cleanName } from '../../src/html/metadata/author.js';
import { parseDate } from '../../src/html/metadata/dates.js';
import { describeText, extractMetadata } from '../../src/html/metadata/page-metadata.js';
import { split } from '../../src/html/metadata/title.js';
import { loadReadabilityPages, type ReadabilityPage } from './data.js';

/**
 * Page metadata against Mozilla Readability's own output on its 130 test pages
 * (../shared/data/extraction/readability-pages; BENCH_DATA moves it). Readability's values are
 * not human gold: a mismatch can be our better answer (a title without its site name, a byline
 * without its date), so --verbose lists the mismatches for reading.
 *
 * Per field, the share of pages whose value equals the expected one after collapsing
 * whitespace and case; language by primary subtag; published time by instant when both give
 * an offset, by wall-clock time when one does not, by date when one is date-only. Pages whose
 * expected value is null, absent or empty are counted apart: there a match means we too
 * return null.
 *
 * Two more rows separate the decoration we remove by design from real disagreement: a title
 * matching a run of the expected title's separator-delimited segments (Readability keeps "|
 * Site"), and a byline matching the expected one after our own name cleaning (Readability
 * keeps "By" and trailing dates).
 *
 * The pages come without their URLs: each is read as http://fakehost/test/page.html and, when it
 * declares a canonical URL, read again as that URL (what the service would have fetched). Pages
 * are parsed with the worker's parseHtml (src/html/dom.ts); the main text for language and
 * word count is the current cleaner's (src/html/clean-html.ts).
 *
 *   node dist/bench/extract/metadata.js [--verbose]
 */

const FAKE_URL = 'http://fakehost/test/page.html';
type Field = 'title' | 'byline' | 'language' | 'markupLanguage' | 'publishedTime' | 'siteName' | 'excerpt';
const FIELDS: Array<{ field: Field; label: string }> = [
  { field: 'title', label: 'title' },
  { field: 'byline', label: 'author / byline' },
  { field: 'language', label: 'language' },
  // Readability reads <html lang> only; on pages without it our text detection cannot match null.
  { field: 'markupLanguage', label: '  markup alone' },
  { field: 'publishedTime', label: 'published time' },
  { field: 'siteName', label: 'site name' },
  { field: 'excerpt', label: 'description / excerpt' },
];

interface Outcome {
  id: string;
  field: Field;
  expected: string | null;
  actual: string | null;
  match: boolean;
  /** Match once the expected value loses the decoration we remove by design (title and byline). */
  undecoratedMatch: boolean;
}

function main(): void {
  const verbose = process.argv.includes('--verbose');
  const pages = loadReadabilityPages();
  const outcomes: Outcome[] = [];
  let metadataMs = 0;
  let textMs = 0;
  for (const page of pages) {
    const doc = parseHtml(page.html);
    let started = performance.now();
    let meta = extractMetadata(doc, FAKE_URL);
    if (meta.canonicalUrl && meta.canonicalUrl !== FAKE_URL) meta = extractMetadata(doc, meta.canonicalUrl);
    metadataMs += performance.now() - started;

    const mainText = cleanHtml({ html: page.html, url: meta.canonicalUrl ?? FAKE_URL, kind: 'html', format: 'text', clean: true, preserveFormatting: false }).text;
    started = performance.now();
    const text = describeText(mainText, meta.language);
    textMs += performance.now() - started;

    const actual: Record<Field, string | null> = {
      title: meta.title,
      byline: meta.author,
      language: text.language,
      markupLanguage: meta.language,
      publishedTime: meta.publishedDate,
      siteName: meta.siteName,
      excerpt: meta.description,
    };
    for (const { field } of FIELDS) outcomes.push(compare(page, field, actual[field]));
  }

  console.log(`page metadata vs Readability on ${pages.length} pages (share of matching values)\n`);
  console.log(pad('field', 24) + pad('expected set', 22) + pad('expected null', 22) + 'all');
  for (const { field, label } of FIELDS) {
    const rows = outcomes.filter((o) => o.field === field);
    const set = rows.filter((o) => o.expected !== null);
    const unset = rows.filter((o) => o.expected === null);
    console.log(pad(label, 24) + pad(share(set), 22) + pad(share(unset), 22) + share(rows));
    if (field === 'title' || field === 'byline') {
      const undecorated = (list: Outcome[]): Outcome[] => list.map((o) => ({ ...o, match: o.undecoratedMatch }));
      console.log(pad(`  ${field === 'title' ? 'without site affix' : 'without By/date'}`, 24) + pad(share(undecorated(set)), 22) + pad(share(undecorated(unset)), 22) + share(undecorated(rows)));
    }
  }
  console.log(`\nmean time per page: metadata ${(metadataMs / pages.length).toFixed(2)} ms, text (language, words) ${(textMs / pages.length).toFixed(2)} ms`);

  if (verbose) {
    console.log('\nmismatches:');
    for (const o of outcomes.filter((x) => !x.match)) {
      console.log(`  ${o.id} ${o.field}\n    expected: ${JSON.stringify(o.expected)}\n    actual:   ${JSON.stringify(o.actual)}`);
    }
  }
}

function compare(page: ReadabilityPage, field: Field, actual: string | null): Outcome {
  const raw = field === 'language' || field === 'markupLanguage' ? page.expected.lang : page.expected[field];
  const expected = raw && raw.trim() ? raw : null;
  let match: boolean;
  if (expected === null || actual === null) match = expected === actual;
  else if (field === 'language' || field === 'markupLanguage') match = primary(expected) === primary(actual);
  else if (field === 'publishedTime') match = sameTime(expected, actual);
  else match = normalise(expected) === normalise(actual);
  let undecoratedMatch = match;
  if (!match && expected !== null && actual !== null) {
    if (field === 'title') undecoratedMatch = segmentRuns(expected).has(normalise(actual));
    if (field === 'byline') undecoratedMatch = normalise(cleanName(expected) ?? '') === normalise(actual);
  }
  return { id: page.id, field, expected, actual, match, undecoratedMatch };
}

/** Every run of consecutive separator-delimited segments of `title`, normalised. */
function segmentRuns(title: string): Set<string> {
  const { parts, separators } = split(title.replace(/\s+/g, ' ').trim());
  const runs = new Set<string>();
  for (let from = 0; from < parts.length; from++) {
    let run = parts[from]!;
    runs.add(normalise(run));
    for (let to = from + 1; to < parts.length; to++) {
      run += separators[to - 1]! + parts[to]!;
      runs.add(normalise(run));
    }
  }
  return runs;
}

function normalise(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();
}

function primary(tag: string): string {
  return tag.toLowerCase().split(/[-_]/)[0]!;
}

/** Same instant when both carry an offset; same wall-clock time when one does not; same day when one is date-only. */
function sameTime(expected: string, actual: string): boolean {
  const a = parseDate(expected) ?? expected;
  const b = parseDate(actual) ?? actual;
  if (a.length === 10 || b.length === 10) return a.slice(0, 10) === b.slice(0, 10);
  const zoned = (s: string): boolean => /(?:Z|[+-]\d{2}:\d{2})$/.test(s);
  if (zoned(a) && zoned(b)) return Date.parse(a) === Date.parse(b);
  return a.slice(0, 19) === b.slice(0, 19);
}

function share(rows: Outcome[]): string {
  if (rows.length === 0) return '-';
  const hits = rows.filter((o) => o.match).length;
  return `${hits}/${rows.length} (${((100 * hits) / rows.length).toFixed(1)}%)`;
}

function pad(text: string, width: number): string {
  return text.padEnd(width);
}

main();
