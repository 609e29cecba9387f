import { expect } from 'chai';
import pLimit from 'p-limit';
import { loadConfig } from '../src/config.js';
import { ApiError } from '../src/errors/catalogue.js';
import { createMetrics, type Metrics } from '../src/metrics/metrics.js';
import { contentProblem, MAIN_TEXT, readPage, type PageReaderDeps, type ReadOptions } from '../src/page/read-page.js';
import { createCpuPool, TaskTimeoutError, type CpuPool } from '../src/pool/pool.js';
import { html, startPageServer, type PageServer } from './helpers/page-server.js';
import { testEnv } from './helpers/service.js';

const ARTICLE = `<html><head><title>Tides</title></head><body><article><h1>Tides</h1>
<p>A tidal bore is a wave that travels up a river against the direction of its current.</p>
<p>It forms where a strong incoming tide meets a river that narrows and shallows upstream.</p>
</article></body></html>`;

/** The fetch counter's value for one outcome. */
async function fetches(metrics: Metrics, outcome: string): Promise<number> {
  const { values } = await metrics.fetches.get();
  return values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

describe('page reader', function () {
  this.timeout(15_000);

  let site: PageServer;
  let pool: CpuPool;
  let deps: PageReaderDeps & { metrics: Metrics };
  const read: ReadOptions = { timeoutMs: 3000, respectRobots: false, ...MAIN_TEXT };
  let hits = 0;

  before(async () => {
    site = await startPageServer({
      '/article': (req, res) => {
        hits++;
        html(ARTICLE)(req, res);
      },
      '/empty': html('<html><body><nav><a href="/">Home</a></nav></body></html>'),
      '/missing': html('gone', 404),
    });
    pool = createCpuPool({ threads: 1, taskTimeoutMs: 5000 });
    deps = { config: loadConfig(testEnv()), pool, fetchLimit: pLimit(4), metrics: createMetrics('worker') };
  });

  after(async () => {
    await site.close();
    await pool.close();
  });

  it('fetches, decodes and cleans a page in the format asked for, and counts the fetch', async () => {
    const { page, cleaned } = await readPage(deps, `${site.url}/article`, { ...read, format: 'json' });
    expect(page.finalUrl).to.equal(`${site.url}/article`);
    expect(cleaned.content).to.be.an('array').that.is.not.empty;
    expect(cleaned.text).to.include('A tidal bore is a wave');
    expect(await fetches(deps.metrics, 'ok')).to.be.at.least(1);
  });

  it('fails a page without main content, or with less than minContentLength', async () => {
    const empty = await readPage(deps, `${site.url}/empty`, read).catch((error: unknown) => error);
    expect(empty).to.be.instanceOf(ApiError);
    expect((empty as ApiError).details).to.deep.equal({ reason: 'no main content found' });
    const short = await readPage(deps, `${site.url}/article`, { ...read, minContentLength: 100_000 }).catch((error: unknown) => error);
    expect((short as ApiError).code).to.equal('EXTRACTION_FAILED');
    expect((short as ApiError).details?.reason).to.match(/^content shorter than min_content_length \(\d+ < 100000\)$/);
  });

  it('reports a failed fetch as the client is told it, and counts it by code', async () => {
    const before = await fetches(deps.metrics, 'URL_UNREACHABLE');
    const error = await readPage(deps, `${site.url}/missing`, read).catch((e: unknown) => e);
    expect((error as ApiError).code).to.equal('URL_UNREACHABLE');
    expect((error as ApiError).details).to.deep.equal({ url: `${site.url}/missing`, http_status: 404, reason: 'HTTP 404' });
    expect(await fetches(deps.metrics, 'URL_UNREACHABLE')).to.equal(before + 1);
  });

  it('fails a page too complex for the pool, or passes the pool’s error on when asked to', async () => {
    const stuck: CpuPool = { ...pool, run: () => Promise.reject(new TaskTimeoutError('cleanHtml', 10)) };
    const failed = await readPage({ ...deps, pool: stuck }, `${site.url}/article`, read).catch((e: unknown) => e);
    expect((failed as ApiError).details).to.deep.equal({ reason: 'page too complex: processing time limit reached' });
    const asIs = await readPage({ ...deps, pool: stuck }, `${site.url}/article`, { ...read, poolTimeout: 'as-is' }).catch((e: unknown) => e);
    expect(asIs).to.be.instanceOf(TaskTimeoutError);
  });

  it('rejects with the signal’s reason without fetching once it has aborted', async () => {
    const reason = new Error('deadline');
    const seen = hits;
    const error = await readPage(deps, `${site.url}/article`, { ...read, signal: AbortSignal.abort(reason) }).catch((e: unknown) => e);
    expect(error).to.equal(reason);
    expect(hits).to.equal(seen);
  });

  it('judges content by its trimmed length and its quality', () => {
    expect(contentProblem({ text: '  \n ', quality: 0.5 })).to.equal('no main content found');
    expect(contentProblem({ text: 'Some text.', quality: 0 })).to.equal('no main content found');
    expect(contentProblem({ text: 'Some text.', quality: 0.5 })).to.equal(undefined);
    expect(contentProblem({ text: ' Some text. ', quality: 0.5 }, 11)).to.equal('content shorter than min_content_length (10 < 11)');
  });
});
