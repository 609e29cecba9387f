/**
 * Speed of the cleaning task on one thread against @mozilla/readability + jsdom, on the same
 * pages in the same run, and both extractors' quality on those pages with the same metric, so
 * the comparison needs no published figure. Not a test: nothing is asserted.
 *
 *   npm run build && node dist/bench/extract/speed.js [rounds=3]
 */
import { JSDOM, VirtualConsole } from 'jsdom';
import { Readability } from '@mozilla/readability';
import { cleanHtml } from '../../src/html/clean-html.js';
import { loadArticleBenchmark } from './data.js';
import { aggregate, matchShingles } from './shingle-metric.js';

const rounds = Number(process.argv[2] ?? 3);
const pages = loadArticleBenchmark();
const megabytes = pages.reduce((sum, p) => sum + Buffer.byteLength(p.html), 0) / 1024 / 1024;

function ours(page: (typeof pages)[number]): string {
  return cleanHtml({ html: page.html, url: page.url, kind: 'html', format: 'text', clean: true, preserveFormatting: false }).text;
}

// jsdom reports CSS it cannot parse on a virtual console; nobody reads it here.
const quiet = new VirtualConsole();
function readability(page: (typeof pages)[number]): string {
  const dom = new JSDOM(page.html, { url: page.url, virtualConsole: quiet });
  const text = new Readability(dom.window.document).parse()?.textContent ?? '';
  dom.window.close();
  return text;
}

/** Pages per second over `rounds` passes, after one warm-up pass, and the last pass's outputs. */
function measure(extract: (page: (typeof pages)[number]) => string): { pagesPerSecond: number; outputs: string[] } {
  let outputs = pages.map(extract);
  const started = performance.now();
  for (let round = 0; round < rounds; round++) outputs = pages.map(extract);
  return { pagesPerSecond: (pages.length * rounds) / ((performance.now() - started) / 1000), outputs };
}

const mine = measure(ours);
const theirs = measure(readability);
const score = (outputs: string[]) => aggregate(outputs.map((output, i) => matchShingles(pages[i]!.expected, output)));
const rows = [
  ['sev cleanHtml (text)', mine.pagesPerSecond, score(mine.outputs)],
  ['@mozilla/readability 0.6 + jsdom 26', theirs.pagesPerSecond, score(theirs.outputs)],
] as const;

console.log(`article-benchmark: ${pages.length} pages, ${megabytes.toFixed(1)} MB of HTML, one thread, ${rounds} timed passes, node ${process.version}`);
console.log('extractor                              pages/s   MB/s   precision  recall     F1');
for (const [name, pps, score] of rows) {
  console.log(`${name.padEnd(38)} ${pps.toFixed(1).padStart(7)} ${(pps * megabytes / pages.length).toFixed(1).padStart(6)}   ${score.precision.toFixed(3).padStart(9)} ${score.recall.toFixed(3).padStart(7)} ${score.f1.toFixed(3).padStart(6)}`);
}
console.log(`speed-up: ${(mine.pagesPerSecond / theirs.pagesPerSecond).toFixed(1)}x`);
