import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { cleanHtml } from '../../src/html/clean-html.js';
import { loadArticleBenchmark, type ArticlePage } from './data.js';
import { aggregate, matchShingles, pageF1, precision, recall, type Counts } from './shingle-metric.js';

/**
 * Main-content quality on scrapinghub's article-extraction-benchmark (181 pages): every page
 * goes through the cleaning task of the pool (format text, metadata included) on this thread,
 * and is scored with the benchmark's shingle metric. It also shows how well quality_score
 * tracks the measured quality: the rank correlation of the two over the pages, and the mean
 * F1 of the pages in each band of the score. Figures are also given for the pages at even and odd
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
  quality: number;
  counts: Counts;
}

interface Scored {
  quality: number;
  f1: number;
}

function main(): void {
  const { values: args } = parseArgs({ options: { only: { type: 'string' }, worst: { type: 'string' }, show: { type: 'boolean' } } });
  const only = args.only;
  const worst = Number(args.worst ?? 0);
  const all = loadArticleBenchmark();
  // The halves are fixed by position in the full id order, whatever --only selects.
  const position = new Map(all.map((page, i) => [page.id, i]));
  const pages = all.filter((page) => only === undefined || page.id.startsWith(only));

  const extract = (page: ArticlePage, clean = true) =>
    cleanHtml({ html: page.html, url: page.url, kind: 'html', format: 'text', clean, preserveFormatting: false });
  const results: PageResult[] = [];
  let cold = 0;
  for (const page of pages) {
    const started = performance.now();
    const { text: predicted, quality } = extract(page);
    cold += performance.now() - started;
    results.push({ page, predicted, quality, counts: matchShingles(page.expected, predicted) });
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
  console.log(`speed     one thread, the whole cleaning task: first pass ${speed(cold)}, warm ${speed(warm)}`);
  // Whole-page extractions (clean_html false) of the same pages: worse main text by nature, so
  // they show whether quality_score falls when the content really is worse.
  const whole = pages.map((page) => {
    const out = extract(page, false);
    return { quality: out.quality, f1: pageF1(matchShingles(page.expected, out.text)) };
  });
  const main = results.map((r) => ({ quality: r.quality, f1: pageF1(r.counts) }));
  reportQualityScore('main content', main);
  reportQualityScore('main content and whole pages', [...main, ...whole]);

  if (worst > 0) {
    const ranked = [...results].sort((a, b) => pageF1(a.counts) - pageF1(b.counts)).slice(0, worst);
    for (const result of ranked) {
      const { counts, page } = result;
      console.log(`\n${page.id.slice(0, 12)}  F1=${pageF1(counts).toFixed(3)} P=${precision(counts).toFixed(3)} R=${recall(counts).toFixed(3)}  ${page.url}`);
      if (args.show) {
        console.log(`--- expected (${page.expected.length} chars)\n${page.expected}\n--- predicted (${result.predicted.length} chars)\n${result.predicted}`);
      }
    }
  }
}

/** Does quality_score rank extractions as their F1 does? Spearman's rho, and mean F1 per score band. */
function reportQualityScore(label: string, scored: readonly Scored[]): void {
  const rho = pearson(ranks(scored.map((s) => s.quality)), ranks(scored.map((s) => s.f1)));
  const bands = ([[0.8, 1.01], [0.6, 0.8], [0.4, 0.6], [0, 0.4]] as const).map(([low, high]) => {
    const band = scored.filter((s) => s.quality >= low && s.quality < high);
    const mean = band.reduce((sum, s) => sum + s.f1, 0) / Math.max(1, band.length);
    return `${low.toFixed(1)}–${Math.min(1, high).toFixed(1)}: ${band.length} × F1 ${band.length ? mean.toFixed(3) : '—'}`;
  });
  console.log(`quality_score, ${label} (${scored.length}): Spearman rho with page F1 ${rho.toFixed(3)}; by score band ${bands.join(', ')}`);
}

/** Ranks with ties sharing their mean rank. */
function ranks(values: readonly number[]): number[] {
  const order = values.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value);
  const result = new Array<number>(values.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]!.value === order[i]!.value) j++;
    for (let k = i; k <= j; k++) result[order[k]!.index] = (i + j) / 2;
    i = j + 1;
  }
  return result;
}

function pearson(a: readonly number[], b: readonly number[]): number {
  const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
  const [ma, mb] = [mean(a), mean(b)];
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < a.length; i++) {
    num += (a[i]! - ma) * (b[i]! - mb);
    da += (a[i]! - ma) ** 2;
    db += (b[i]! - mb) ** 2;
  }
  return da === 0 || db === 0 ? 0 : num / Math.sqrt(da * db);
}

main();
