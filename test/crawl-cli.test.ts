import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { call, startTestService, TEST_KEY, type TestService } from './helpers/service.js';
import { startCrawlSite, type CrawlSite } from './helpers/crawl-site.js';
import { eventually } from './helpers/wait.js';
import { runCli, type CliRun } from './helpers/cli.js';

const CLI = fileURLToPath(new URL('../src/cli/crawl.js', import.meta.url));
const runWords = Array.from({ length: 12 }, () => randomUUID().slice(0, 8)).join(' ');

function crawlCli(args: string[], env: Record<string, string>, onStart?: (child: ChildProcess, stderr: () => string) => void): Promise<CliRun> {
  return runCli(CLI, args, env, onStart ? { onStart } : {});
}

describe('npm run crawl', function () {
  this.timeout(120_000);
  let service: TestService;
  const sites: CrawlSite[] = [];

  before(async () => {
    service = await startTestService();
  });
  after(async () => {
    await service.close();
    await Promise.all(sites.map((site) => site.close()));
  });

  it('crawls through the API with a progress bar and prints the report', async () => {
    const site = await startCrawlSite({ pages: 15, crawlDelay: 0.01, runWords });
    sites.push(site);
    const run = await crawlCli([`${site.url}/`, '--max-pages', '5', '--max-depth', '3', '--exclude', '/p/2', '--no-sitemaps'], {
      SEV_URL: service.url, SEV_API_KEY: TEST_KEY,
    });
    expect(run.code, run.stderr).to.equal(0);
    const report = JSON.parse(run.stdout);
    expect(report).to.include({ state: 'completed' });
    expect(report.options).to.include({ max_pages: 5, max_depth: 3, sitemaps: false });
    expect(report.options.exclude).to.deep.equal(['/p/2']);
    expect(report.pages).to.include({ fetched: 5, indexed: 5, failed: 0 });
    expect(run.stderr).to.match(/^crawl crawl_\S+ started$/m);
    expect(run.stderr).to.match(/\[#+\] 5\/5 pages {2}[\d.]+ pages\/s {2}0 errors {2}completed/);
    expect(site.requests.map((r) => r.path)).to.not.include('/p/2');
  });

  it('cancels the crawl on Ctrl-C', async () => {
    const site = await startCrawlSite({ pages: 60, crawlDelay: 0.3, runWords });
    sites.push(site);
    const run = await crawlCli([`${site.url}/`, '--max-depth', '10'], { SEV_URL: service.url, SEV_API_KEY: TEST_KEY }, (child, stderr) => {
      void eventually(async () => (/started/.test(stderr()) && site.requests.length >= 3 ? true : undefined), 30_000)
        .then(() => child.kill('SIGINT'));
    });
    expect(run.code).to.equal(1);
    const report = JSON.parse(run.stdout);
    expect(report.state).to.equal('cancelled');
    const stored = await call(service.url, `/v1/crawl/${report.crawl_id}`);
    expect(stored.json.data.state).to.equal('cancelled');
  });

  it('explains its usage, and reports a refusal', async () => {
    const env = { SEV_URL: service.url, SEV_API_KEY: TEST_KEY };
    for (const args of [[], ['https://example.com/', '--max-pages', 'many'], ['https://example.com/', '--colour']]) {
      const usage = await crawlCli(args, env);
      expect(usage.code, args.join(' ')).to.equal(2);
      expect(usage.stderr).to.match(/Usage: npm run crawl/);
    }
    const refused = await crawlCli(['https://example.com/', '--max-pages', '0'], env);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/^refused: INVALID_PARAMETER/);
    const badKey = await crawlCli(['https://example.com/'], { ...env, SEV_API_KEY: 'sev_live_wrong' });
    expect(badKey.code).to.equal(1);
    expect(badKey.stderr).to.match(/^refused: INVALID_API_KEY/);
  });
});
