/**
 * Rendered pages per second through the whole API, and the memory a browser context costs:
 * POST /v1/extract with options.render "always" on client-rendered pages (an app shell, a
 * script bundle of about 250 KB that fetches its article as JSON and writes it), served by a
 * local server, with RENDER_CONTEXTS browser contexts (2), API, workers and pool in one process.
 *
 * Memory is the proportional set size of the browser's processes (browser, utilities and
 * renderers), sampled every 100 ms: idle (launched, no context open) and at its peak while the
 * contexts render; per context is the difference divided by the number of contexts. Not a test:
 * nothing is asserted. Needs Chromium at CHROMIUM_PATH (/usr/bin/chromium).
 *
 *   npm run bench:render -- [pages=60] [concurrency=4] [contexts=2]
 */
import fs from 'node:fs/promises';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log/logger.js';
import { descendants, treeMemoryMb } from '../../src/render/process-memory.js';
import { startService } from '../../src/service.js';
import { appShell, storyScript } from '../../test/helpers/client-rendered.js';
import { raw, startPageServer } from '../../test/helpers/page-server.js';
import { testEnv, TEST_KEY } from '../../test/helpers/service.js';
import { percentile } from '../percentile.js';

const pageCount = Number(process.argv[2] ?? 60);
const concurrency = Number(process.argv[3] ?? 4);
const contexts = Number(process.argv[4] ?? 2);

const WORDS = 'harbour tide ferry timetable council budget river bridge school library winter storm repair station market festival museum railway'.split(' ');

/** A deterministic article of `paragraphs` paragraphs for page `n`. */
function story(n: number, paragraphs = 8): { title: string; paragraphs: string[] } {
  const word = (i: number) => WORDS[(n * 7 + i * 13) % WORDS.length]!;
  const sentence = (i: number) => `The ${word(i)} and the ${word(i + 1)} were discussed again by the ${word(i + 2)} committee on page ${n}.`;
  return {
    title: `Report ${n}: the ${word(0)} question`,
    paragraphs: Array.from({ length: paragraphs }, (_, p) => Array.from({ length: 6 }, (_, s) => sentence(p * 6 + s)).join(' ')),
  };
}

// A bundle the browser must parse and run, as real apps ship: many small functions, then the app.
const BUNDLE = [
  ...Array.from({ length: 6000 }, (_, i) => `function helper${i}(x){return (x*${i % 97}+${i % 13})%${(i % 89) + 2};}`),
  `const page = Number(location.pathname.split('/').pop());
${storyScript("'/api/story/' + page")}`,
].join('\n');

const SHELL = appShell('App', '/bundle.js');

const routes: Record<string, ReturnType<typeof raw>> = { '/bundle.js': raw(BUNDLE, { 'content-type': 'text/javascript' }) };
for (let n = 0; n < pageCount; n++) {
  routes[`/app/${n}`] = raw(SHELL, { 'content-type': 'text/html; charset=utf-8' });
  routes[`/api/story/${n}`] = raw(JSON.stringify(story(n)), { 'content-type': 'application/json' });
}
const site = await startPageServer(routes);
const config = loadConfig(testEnv({
  POOL_SIZE: '2', WORKER_CONCURRENCY: String(concurrency), RATE_LIMIT_PER_MINUTE: '1000000',
  RENDER_CONTEXTS: String(contexts), FETCH_PER_HOST_CONCURRENCY: '8',
}));
const service = await startService(config, 'all', createLogger('silent', 'all'));

async function extract(n: number): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${service.url}/v1/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${site.url}/app/${n}`, format: 'markdown', options: { render: 'always' } }),
  });
  const body = await response.json() as { data?: { content?: string } };
  if (response.status !== 200 || !body.data?.content?.includes(`on page ${n}.`)) throw new Error(`page ${n}: status ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  return performance.now() - started;
}

/** The browser this process launched (Playwright starts it as our child). */
async function browserPid(): Promise<number | undefined> {
  for (const pid of (await descendants(process.pid)) ?? []) {
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('--remote-debugging-pipe')) return pid;
  }
  return undefined;
}

// Warm-up: launches the browser and runs a page through every context.
await Promise.all(Array.from({ length: contexts }, (_, i) => extract(i)));
const pid = await browserPid();
if (pid === undefined) throw new Error('no browser found');
await new Promise((resolve) => setTimeout(resolve, 1000));
const idle = (await treeMemoryMb(pid)) ?? NaN;

let peak = idle;
let sampling = true;
const sampler = (async () => {
  while (sampling) {
    const used = await treeMemoryMb(pid);
    if (used !== undefined && used > peak) peak = used;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
})();

const queue = Array.from({ length: pageCount }, (_, n) => n);
const latencies: number[] = [];
const started = performance.now();
await Promise.all(Array.from({ length: concurrency }, async () => {
  for (let n = queue.shift(); n !== undefined; n = queue.shift()) latencies.push(await extract(n));
}));
const seconds = (performance.now() - started) / 1000;
sampling = false;
await sampler;

latencies.sort((a, b) => a - b);
const pct = (p: number): string => percentile(latencies, p).toFixed(0);
console.log(`POST /v1/extract with render "always" over ${latencies.length} client-rendered pages (bundle ${(BUNDLE.length / 1024).toFixed(0)} KB, article fetched as JSON), concurrency ${concurrency}, ${contexts} browser contexts, pool ${config.poolSize} threads, node ${process.version}`);
console.log(`throughput: ${(latencies.length / seconds).toFixed(2)} rendered pages/s`);
console.log(`latency ms: p50 ${pct(50)}  p95 ${pct(95)}  p99 ${pct(99)}`);
console.log(`browser memory (PSS of all its processes): idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB while rendering; per context ${((peak - idle) / contexts).toFixed(0)} MB`);
await service.close();
await site.close();
