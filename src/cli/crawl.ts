/**
 * `npm run crawl -- URL [URL...] [options]`: starts a crawl through POST /v1/crawl, follows it
 * with GET /v1/crawl/{id} and a progress bar on stderr, and prints the final report (the API's
 * crawl object) as JSON on stdout. Ctrl-C cancels the crawl (DELETE /v1/crawl/{id}) first.
 * Settings: SEV_API_KEY (a key with the index scope; its mode decides live or sandbox) and
 * SEV_URL (default http://127.0.0.1:$PORT, PORT defaulting to 8080).
 * Exit codes: 0 the crawl completed without failed pages, 1 some pages failed, the crawl was
 * cancelled or failed, or the API refused it; 2 the command line is wrong.
 */
import { parseArgs } from 'node:util';
import { CrawlClient, type CrawlRequest, type CrawlView } from './crawl-client.js';
import { apiBaseUrl } from './service-client.js';
import { SevError } from '../../clients/typescript/src/index.js';
import { ProgressBar } from './progress-bar.js';

const USAGE = `Usage: npm run crawl -- URL [URL...] [options]

Crawls from the seed URLs through POST /v1/crawl and indexes every page it may fetch.
  --max-pages N      pages fetched at most (default 100, at most 10000)
  --max-depth N      links followed from a seed (default 3, at most 20; 0 = seeds only)
  --include P        only URLs matching P (repeatable; * is a wildcard, /path patterns match path and query)
  --exclude P        leave out URLs matching P (repeatable)
  --any-domain       follow links to other domains too
  --no-sitemaps      do not read the sites' sitemaps
  --max-duration S   seconds the crawl may run (default 3600)
Environment: SEV_API_KEY (required, scope index), SEV_URL (default http://127.0.0.1:8080).
Ctrl-C cancels the crawl.
`;

const POLL_MS = 1000;
const FINISHED = new Set(['completed', 'cancelled', 'failed']);

/** The request body from the command line, or a usage error message. */
function requestBody(argv: string[]): CrawlRequest | string {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'max-pages': { type: 'string' },
        'max-depth': { type: 'string' },
        include: { type: 'string', multiple: true },
        exclude: { type: 'string', multiple: true },
        'any-domain': { type: 'boolean' },
        'no-sitemaps': { type: 'boolean' },
        'max-duration': { type: 'string' },
      },
    });
  } catch (error) {
    return (error as Error).message;
  }
  const { values, positionals } = parsed;
  if (positionals.length === 0) return 'at least one URL is required';
  const body: CrawlRequest = { urls: positionals };
  for (const [flag, field] of [['max-pages', 'max_pages'], ['max-depth', 'max_depth'], ['max-duration', 'max_duration']] as const) {
    const text = values[flag];
    if (text === undefined) continue;
    if (!/^\d+$/.test(text)) return `--${flag} must be a whole number, got ${text}`;
    body[field] = Number(text);
  }
  if (values.include) body.include = values.include;
  if (values.exclude) body.exclude = values.exclude;
  if (values['any-domain']) body.same_domain = false;
  if (values['no-sitemaps']) body.sitemaps = false;
  return body;
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stderr.write(USAGE);
    return 0;
  }
  const body = requestBody(argv);
  if (typeof body === 'string') {
    process.stderr.write(`${body}\n\n${USAGE}`);
    return 2;
  }
  const apiKey = process.env.SEV_API_KEY;
  if (!apiKey) {
    process.stderr.write(`SEV_API_KEY is not set.\n\n${USAGE}`);
    return 2;
  }
  const client = new CrawlClient(apiBaseUrl(), apiKey);

  let crawl: CrawlView;
  try {
    crawl = await client.start(body);
  } catch (error) {
    const details = error instanceof SevError && error.details ? ` ${JSON.stringify(error.details)}` : '';
    process.stderr.write(`refused: ${(error as Error).message}${details}\n`);
    return 1;
  }
  process.stderr.write(`crawl ${crawl.crawl_id} started\n`);

  let interrupted = false;
  let wake: () => void = () => undefined;
  process.on('SIGINT', () => {
    // A second Ctrl-C leaves at once, without waiting for the cancellation.
    if (interrupted) process.exit(130);
    interrupted = true;
    wake();
  });

  const bar = new ProgressBar(process.stderr, { name: 'pages', rate: 'pages' });
  const show = (view: CrawlView, final = false) => bar.update({
    done: view.pages.fetched + view.pages.failed, total: view.pages.discovered, errors: view.pages.failed, state: view.state,
  }, final);
  try {
    while (!FINISHED.has(crawl.state) && !interrupted) {
      show(crawl);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, POLL_MS);
      });
      if (!interrupted) crawl = await client.get(crawl.crawl_id);
    }
    if (interrupted) crawl = await client.cancel(crawl.crawl_id);
  } catch (error) {
    show(crawl, true);
    process.stderr.write(`stopped: ${(error as Error).message}\n`);
    process.stdout.write(`${JSON.stringify(crawl, null, 2)}\n`);
    return 1;
  }
  show(crawl, true);
  process.stdout.write(`${JSON.stringify(crawl, null, 2)}\n`);
  return crawl.state === 'completed' && crawl.pages.failed === 0 ? 0 : 1;
}

process.exitCode = await main();
