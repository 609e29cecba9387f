import { performance } from 'node:perf_hooks';
import { parseHtml } from '../../workers/pool/dom.js';
import { extractMainContent } from '../../workers/pool/content/main-content.js';
import { renderText } from '../../workers/pool/render/text.js';
import { loadArticleBenchmark, type ArticlePage } from './data.js';
import { aggregate, matchShingles, pageF1, precision, recall, type Counts } from './shingle-metric.js';

/**
 * Main-content quality on scrapinghub's article-extraction-benchmark (181 pages): every page
 * goes through parseHtml → extractMainContent → renderText on this thread, and is scored
 * with the benchmark's shingle metric. Figures are also given for the pages at even and odd
 * positions of the id order (dev and held-out halves): tuning on one half and seeing the
 * other fall behind reveals overfitting.
 *
 *   node dist/bench/extract/quality.js [--worst N] [--only ID-PREFIX] [--show]
 *
 * --worst N lists the N lowest-scoring pages; --only limits the run to ids with that prefix;
 * --show prints expected and predicted text of the listed pages.
 */
interface PageResult {
  page: ArticlePage;
  predicted: string;
  counts: Counts;
}

function main(): void {
  const args = process.argv.slice(2);
  const option = (name: string): string | undefined => {
    const at = args.indexOf(name);
    return at === -1 ? undefined : args[at + 1];
  };
  const only = option('--only');
  const worst = Number(option('--worst') ?? 0);
  const all = loadArticleBenchmark();
  // The halves are fixed by position in the full id order, whatever --only selects.
  const position = new Map(all.map((page, i) => [page.id, i]));
  const pages = all.filter((page) => only === undefined || page.id.startsWith(only));

  const extract = (page: ArticlePage): string =>
    renderText(extractMainContent(parseHtml(page.html), { url: page.url, clean: true }).blocks, { preserveFormatting: false });
  const results: PageResult[] = [];
  let cold = 0;
  for (const page of pages) {
    const started = performance.now();
    const predicted = extract(page);
    cold += performance.now() - started;
    results.push({ page, predicted, counts: matchShingles(page.expected, predicted) });
  }
  // A second pass measures the steady state of a long-lived worker (code optimised, caches warm).
  const started = performance.now();
  for (const page of pages) extract(page);
  const warm = performance.now() - started;

  const line = (label: string, subset: PageResult[]): void => {
    const scores = aggregate(subset.map((result) => result.counts));
    console.log(
      `${label.padEnd(9)} pages=${String(subset.length).padStart(3)}  precision=${scores.precision.toFixed(4)}  recall=${scores.recall.toFixed(4)}  F1=${scores.f1.toFixed(4)}`,
    );
  };
  line('all', results);
  line('dev', results.filter((result) => position.get(result.page.id)! % 2 === 0));
  line('held-out', results.filter((result) => position.get(result.page.id)! % 2 === 1));
  const speed = (ms: number): string => `${(results.length / (ms / 1000)).toFixed(1)} pages/s (${(ms / results.length).toFixed(2)} ms/page)`;
  console.log(`speed     one thread, parse + extract + render: first pass ${speed(cold)}, warm ${speed(warm)}`);

  if (worst > 0) {
    const ranked = [...results].sort((a, b) => pageF1(a.counts) - pageF1(b.counts)).slice(0, worst);
    for (const result of ranked) {
      const { counts, page } = result;
      console.log(`\n${page.id.slice(0, 12)}  F1=${pageF1(counts).toFixed(3)} P=${precision(counts).toFixed(3)} R=${recall(counts).toFixed(3)}  ${page.url}`);
      if (args.includes('--show')) {
        console.log(`--- expected (${page.expected.length} chars)\n${page.expected}\n--- predicted (${result.predicted.length} chars)\n${result.predicted}`);
      }
    }
  }
}

main();
