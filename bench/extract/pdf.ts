/**
 * PDF pages per second, three ways: the extractPdf task called on one thread; through the pool
 * (POOL_SIZE threads, 2 here, twice as many PDFs in flight as threads); and through the whole API
 * (POST /v1/extract of a PDF served by a local server: fetch, pool, MySQL, index). The documents:
 * a generated one of text pages (test/helpers/pdf-samples.ts, longPdf) and every PDF file named on
 * the command line. On one thread it also says how much of the time is our layout analysis
 * (src/pdf after pdf.js has given the text runs), and its pages per second of CPU time, which
 * other work on a shared machine changes less than the wall-clock rate. Not a test: nothing is
 * asserted.
 *
 *   npm run bench:pdf -- [file.pdf ...]
 *   PDF_BENCH_PAGES=50 PDF_BENCH_ROUNDS=3 npm run bench:pdf -- /usr/share/doc/libtasn1-doc/libtasn1.pdf
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log/logger.js';
import { extractPdf, pdfContent, type ExtractPdfInput } from '../../src/pdf/extract-pdf.js';
import { loadPdf } from '../../src/pdf/load-pdf.js';
import { createCpuPool } from '../../src/pool/pool.js';
import { startService } from '../../src/service.js';
import { raw, startPageServer } from '../../test/helpers/page-server.js';
import { longPdf } from '../../test/helpers/pdf-samples.js';
import { testEnv, TEST_KEY } from '../../test/helpers/service.js';

const generatedPages = Number(process.env.PDF_BENCH_PAGES ?? 50);
const rounds = Number(process.env.PDF_BENCH_ROUNDS ?? 3);
const THREADS = 2;
const documents = [
  { name: `generated (${generatedPages} pages of text)`, data: longPdf(generatedPages) },
  ...process.argv.slice(2).map((file) => ({ name: basename(file), data: readFileSync(file) })),
];
const task = (data: Buffer): ExtractPdfInput => ({ data, format: 'markdown', clean: true, preserveFormatting: false, pageMarkers: false, maxPages: 100_000 });

async function pageCount(data: Buffer): Promise<number> {
  const out = await extractPdf(task(data));
  if ('failed' in out) throw new Error(out.failed);
  return out.metadata.pageCount!;
}

/** Runs `once` `runs` times, `inFlight` at a time; seconds taken. */
async function timed(runs: number, inFlight: number, once: () => Promise<unknown>): Promise<number> {
  let left = runs;
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (left-- > 0) await once();
  }));
  return (performance.now() - started) / 1000;
}

const pool = createCpuPool({ threads: THREADS, taskTimeoutMs: 600_000 });
const site = await startPageServer(Object.fromEntries(documents.map((d, i) => [`/${i}.pdf`, raw(d.data, { 'content-type': 'application/pdf' })])));
const config = loadConfig(testEnv({
  POOL_SIZE: String(THREADS), RATE_LIMIT_PER_MINUTE: '1000000', FETCH_PER_HOST_CONCURRENCY: '8', FETCH_MAX_MB: '200', PDF_MAX_PAGES: '100000', PDF_TIMEOUT_MS: '600000',
}));
const service = await startService(config, 'all', createLogger('silent', 'all'));

async function viaApi(index: number): Promise<void> {
  const response = await fetch(`${service.url}/v1/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${site.url}/${index}.pdf`, format: 'markdown', options: { timeout: 60 } }),
  });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`status ${response.status}: ${body.slice(0, 300)}`);
}

console.log(`PDF extraction, node ${process.version}, ${rounds} timed runs per thread after a warm-up; pool and API with ${THREADS} threads, ${2 * THREADS} PDFs in flight`);
console.log('document                                   pages      KB   1 thread p/s  p/CPU-s  (layout)   pool p/s    API p/s');
for (const [i, doc] of documents.entries()) {
  const pages = await pageCount(doc.data);
  let layoutSeconds = 0;
  const cpuBefore = process.cpuUsage();
  const single = await timed(rounds, 1, async () => {
    const loaded = await loadPdf(doc.data, 100_000);
    if ('failed' in loaded) throw new Error(loaded.failed);
    const started = performance.now();
    pdfContent(loaded, task(doc.data));
    layoutSeconds += (performance.now() - started) / 1000;
  });
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  await Promise.all(Array.from({ length: THREADS }, () => pool.run('extractPdf', task(doc.data))));
  const pooled = await timed(rounds * THREADS, 2 * THREADS, () => pool.run('extractPdf', task(doc.data)));
  await viaApi(i);
  const api = await timed(rounds * THREADS, 2 * THREADS, () => viaApi(i));
  const rate = (seconds: number, runs: number) => ((pages * runs) / seconds).toFixed(0).padStart(10);
  const layout = `${((100 * layoutSeconds) / single).toFixed(0)} %`.padStart(8);
  console.log(`${doc.name.slice(0, 40).padEnd(40)} ${String(pages).padStart(7)} ${(doc.data.length / 1024).toFixed(0).padStart(7)}   ${rate(single, rounds)} ${rate(cpuSeconds, rounds).slice(2)}  ${layout}   ${rate(pooled, rounds * THREADS)} ${rate(api, rounds * THREADS)}`);
}
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (bench, API, workers, pools and page server in one process)`);
await pool.close();
await service.close();
await site.close();
