/**
 * Main-content quality on the project's own development set (bench/extract/dev-set, 104 pages of
 * forums, Q&A, comment threads, documentation, reference pages, short-block pages, link roundups,
 * CJK and right-to-left pages, news in ten languages), with the snippet metric: the share of
 * `must` snippets found (recall) and of found snippets that are not `not` snippets (precision),
 * overall, per kind and per layout. @mozilla/readability runs on the same pages in the same run
 * for comparison. Not a test: nothing is asserted.
 *
 *   npm run bench:extract:dev [-- --failures] [-- --only ID-PREFIX] [-- --show ID]
 *
 * --failures lists every missed and leaked snippet; --only limits the run to ids with that
 * prefix; --show prints one page's extracted text.
 */
import { parseArgs } from 'node:util';
import { JSDOM, VirtualConsole } from 'jsdom';
import { Readability } from '@mozilla/readability';
import { cleanHtml } from '../../src/html/clean-html.js';
import { loadDevSet, type DevPage } from './dev-set/pages.js';

interface Tally {
  tp: number;
  fn: number;
  fp: number;
  tn: number;
}

interface Judged {
  page: DevPage;
  text: string;
  missed: string[];
  leaked: string[];
  tally: Tally;
}

const normalize = (text: string): string => text.replace(/\s+/g, ' ').trim();

function judge(page: DevPage, extracted: string): Judged {
  const text = normalize(extracted);
  const missed = page.must.filter((snippet) => !text.includes(normalize(snippet)));
  const leaked = page.not.filter((snippet) => text.includes(normalize(snippet)));
  return {
    page,
    text: extracted,
    missed,
    leaked,
    tally: { tp: page.must.length - missed.length, fn: missed.length, fp: leaked.length, tn: page.not.length - leaked.length },
  };
}

function scores(results: readonly Judged[]): { precision: number; recall: number; f1: number; pages: number } {
  const sum = results.reduce((acc, r) => ({ tp: acc.tp + r.tally.tp, fn: acc.fn + r.tally.fn, fp: acc.fp + r.tally.fp, tn: acc.tn + r.tally.tn }), { tp: 0, fn: 0, fp: 0, tn: 0 });
  const precision = sum.tp + sum.fp > 0 ? sum.tp / (sum.tp + sum.fp) : 0;
  const recall = sum.tp + sum.fn > 0 ? sum.tp / (sum.tp + sum.fn) : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1, pages: results.length };
}

function ours(page: DevPage): string {
  return cleanHtml({ html: page.html, url: page.url, kind: 'html', format: 'text', clean: true, preserveFormatting: false }).text;
}

// jsdom reports CSS it cannot parse on a virtual console; nobody reads it here.
const quiet = new VirtualConsole();
function readability(page: DevPage): string {
  const dom = new JSDOM(page.html, { url: page.url, virtualConsole: quiet });
  const text = new Readability(dom.window.document).parse()?.textContent ?? '';
  dom.window.close();
  return text;
}

function main(): void {
  const { values: args } = parseArgs({ options: { only: { type: 'string' }, show: { type: 'string' }, failures: { type: 'boolean' } } });
  const { only, show } = args;
  const pages = loadDevSet().filter((page) => only === undefined || page.id.startsWith(only));
  const mine = pages.map((page) => judge(page, ours(page)));
  const theirs = pages.map((page) => judge(page, readability(page)));

  const row = (label: string, subset: (results: readonly Judged[]) => Judged[]): void => {
    const a = scores(subset(mine));
    const b = scores(subset(theirs));
    const cell = (s: ReturnType<typeof scores>): string => `${s.precision.toFixed(3)} ${s.recall.toFixed(3)} ${s.f1.toFixed(3)}`;
    console.log(`${label.padEnd(16)} ${String(a.pages).padStart(5)}   ${cell(a)}   ${cell(b)}`);
  };
  const snippets = pages.reduce((sum, page) => sum + page.must.length + page.not.length, 0);
  console.log(`development set: ${pages.length} pages, ${snippets} snippets (text format, snippet metric)`);
  console.log(`${'group'.padEnd(16)} pages   sev: P     R     F1      readability: P R F1`);
  row('all', (results) => [...results]);
  const groups = (key: (page: DevPage) => string): string[] => [...new Set(pages.map(key))].sort();
  for (const kind of groups((page) => page.kind)) row(`kind ${kind}`, (results) => results.filter((r) => r.page.kind === kind));
  for (const layout of groups((page) => page.layout)) row(`  ${layout}`, (results) => results.filter((r) => r.page.layout === layout));

  if (args.failures) {
    for (const result of mine) {
      if (result.missed.length === 0 && result.leaked.length === 0) continue;
      console.log(`\n${result.page.id} (${result.page.kind}, ${result.page.layout})`);
      for (const snippet of result.missed) console.log(`  missed: ${snippet}`);
      for (const snippet of result.leaked) console.log(`  leaked: ${snippet}`);
    }
  }
  if (show !== undefined) {
    const result = mine.find((r) => r.page.id === show);
    console.log(result ? `\n--- ${show}\n${result.text}` : `\nno page ${show}`);
  }
}

main();
