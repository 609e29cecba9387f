/**
 * Peak memory of a worker's pool while it cleans the largest benchmark pages and pathological
 * pages (100,000 nested elements, a 5 MB single line, unclosed tags, binary garbage), with the
 * time each took. Not a test: nothing is asserted.
 *
 *   npm run build && node dist/bench/extract/memory.js
 */
import { randomBytes } from 'node:crypto';
import { createCpuPool } from '../../src/pool/pool.js';
import { loadArticleBenchmark } from './data.js';

const largest = loadArticleBenchmark().sort((a, b) => b.html.length - a.html.length).slice(0, 10);
const pathological: Array<[string, string]> = [
  ['100,000 nested divs', `${'<div>'.repeat(100_000)}deep text${'</div>'.repeat(100_000)}`],
  ['5 MB single line', `<p>${'word '.repeat(1_000_000)}</p>`],
  ['100,000 unclosed tags', `<body>${'<p><b><i><span>unclosed text '.repeat(25_000)}`],
  ['2 MB of binary garbage', randomBytes(2 * 1024 * 1024).toString('latin1')],
];
const pages: Array<[string, string]> = [...largest.map((p): [string, string] => [`page ${p.id.slice(0, 12)} (${(p.html.length / 1024).toFixed(0)} kB)`, p.html]), ...pathological];

const pool = createCpuPool({ threads: 2, taskTimeoutMs: 30_000 });
const baseline = process.memoryUsage().rss;
console.log(`${'page'.padEnd(34)} ${'ms'.padStart(8)}  outcome`);
for (const [name, html] of pages) {
  const started = performance.now();
  let outcome: string;
  try {
    const out = await pool.run('cleanHtml', { html, url: 'http://bench.test/', kind: 'html', format: 'markdown', clean: true, preserveFormatting: false });
    outcome = 'tooComplex' in out ? `refused: ${out.tooComplex}` : `${out.text.length} characters of text`;
  } catch (error) {
    outcome = `failed: ${(error as Error).message}`;
  }
  console.log(`${name.padEnd(34)} ${(performance.now() - started).toFixed(0).padStart(8)}  ${outcome}`);
}
console.log(`RSS before the pages: ${(baseline / 1024 / 1024).toFixed(0)} MB; peak RSS (process with its 2 pool threads): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
await pool.close();
