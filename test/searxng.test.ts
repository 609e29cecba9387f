import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.js';
import { createMetrics, type Metrics } from '../src/metrics/metrics.js';
import { applyResultFilters } from '../src/search/upstream/result-filters.js';
import { createSearxngClient, type SearxngClient } from '../src/search/upstream/searxng.js';
import type { UpstreamResult } from '../src/search/upstream/upstream-result.js';

// The only server contacted is the one this file starts on 127.0.0.1, answering as SearXNG's
// JSON API does (https://docs.searxng.org/dev/search_api.html). No FETCH_ALLOW_PRIVATE is set:
// the configured instance is trusted and bypasses the page fetcher's address guard.

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

interface FakeSearxng {
  url: string;
  requests: URL[];
  userAgents: string[];
  handle: Handler;
  close(): Promise<void>;
}

async function startFakeSearxng(): Promise<FakeSearxng> {
  const fake: FakeSearxng = { url: '', requests: [], userAgents: [], handle: json(answer([])), close: async () => undefined };
  const server = http.createServer((req, res) => {
    fake.requests.push(new URL(req.url ?? '/', 'http://127.0.0.1'));
    fake.userAgents.push(req.headers['user-agent'] ?? '');
    fake.handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

function json(body: unknown, status = 200, delayMs = 0): Handler {
  return (_req, res) => {
    const timer = setTimeout(() => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    }, delayMs);
    res.on('close', () => clearTimeout(timer));
  };
}

/** A whole SearXNG answer, with the top-level fields the instance always sends. */
function answer(results: unknown[]): Record<string, unknown> {
  return {
    query: 'solid state battery',
    number_of_results: 0,
    results,
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: ['solid state battery news'],
    unresponsive_engines: [['brave', 'timeout'], ['qwant', 'CAPTCHA']],
  };
}

function searxResult(url: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const parsed = new URL(url);
  return {
    url,
    title: `Title of ${url}`,
    content: `About ${url}`,
    engine: 'bing',
    engines: ['bing'],
    parsed_url: [parsed.protocol.slice(0, -1), parsed.host, parsed.pathname, '', parsed.search.slice(1), ''],
    template: 'default.html',
    positions: [1],
    score: 1,
    category: 'general',
    publishedDate: null,
    ...extra,
  };
}

function client(fake: FakeSearxng, metrics: Metrics, env: Record<string, string> = {}): SearxngClient {
  const config = loadConfig({ SEARXNG_URL: fake.url, SEARXNG_TIMEOUT_MS: '300', UPSTREAM_BREAKER_FAILURES: '3', UPSTREAM_BREAKER_COOLDOWN_MS: '400', ...env });
  const searxng = createSearxngClient(config, metrics);
  if (!searxng) throw new Error('SEARXNG_URL was set, a client was expected');
  return searxng;
}

async function counted(metrics: Metrics, outcome: string): Promise<number> {
  const { values } = await metrics.upstreamRequests.get();
  return values.find((v) => v.labels.engine === 'searxng' && v.labels.outcome === outcome)?.value ?? 0;
}

async function circuitGauge(metrics: Metrics): Promise<number | undefined> {
  return (await metrics.upstreamCircuitState.get()).values.find((v) => v.labels.engine === 'searxng')?.value;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SearXNG adapter', () => {
  let fake: FakeSearxng;
  let metrics: Metrics;

  beforeEach(async () => {
    fake = await startFakeSearxng();
    metrics = createMetrics('all');
  });
  afterEach(async () => {
    await fake.close();
  });

  it('is disabled without SEARXNG_URL', () => {
    expect(createSearxngClient(loadConfig({}), metrics)).to.equal(undefined);
  });

  it('sends the query and its parameters to /search below the configured URL', async () => {
    const searxng = client(fake, metrics, { SEARXNG_URL: `${fake.url}/searx/` });
    const outcome = await searxng.search({ query: 'solid state battery', language: 'en', timeRange: 'week', page: 2, categories: ['general', 'news'] });
    expect(outcome.ok).to.equal(true);
    expect(fake.requests).to.have.length(1);
    const sent = fake.requests[0]!;
    expect(sent.pathname).to.equal('/searx/search');
    expect(Object.fromEntries(sent.searchParams)).to.deep.equal({
      q: 'solid state battery',
      format: 'json',
      language: 'en',
      time_range: 'week',
      pageno: '2',
      categories: 'general,news',
    });
    expect(fake.userAgents[0]).to.match(/^sev-api\//);
  });

  it('leaves unset parameters to the instance and asks for the first page', async () => {
    await client(fake, metrics).search({ query: 'q' });
    expect(Object.fromEntries(fake.requests[0]!.searchParams)).to.deep.equal({ q: 'q', format: 'json', pageno: '1' });
  });

  it('normalises results, merges duplicates and drops malformed ones', async () => {
    fake.handle = json(answer([
      searxResult('https://www.example.com/battery?utm_source=feed&id=7', {
        title: '  Solid-state\n batteries  ',
        content: 'A solid\telectrolyte   replaces the liquid one.',
        publishedDate: '2026-11-20T10:00:00Z',
        engines: ['bing', 'duckduckgo'],
        score: 2.5,
      }),
      // The same page as the first, as another engine spells it.
      searxResult('http://example.com/battery/?id=7#top', { engine: 'google', engines: ['google'], score: 4 }),
      searxResult('https://news.example.org/cells', { content: undefined, publishedDate: 'not a date', score: 'high', engines: 'bing', language: 'de-DE' }),
      searxResult('ftp://files.example.net/battery.pdf'),
      searxResult('javascript:alert(1)'),
      { ...searxResult('https://example.net/no-title'), title: undefined },
      { ...searxResult('https://example.net/blank-title'), title: '   ' },
      { ...searxResult('https://example.net/x'), url: 42 },
      { title: 'no url at all' },
      { ...searxResult('https://example.net/y'), url: 'not a url' },
      null,
      'a string',
    ]));
    const outcome = await client(fake, metrics).search({ query: 'solid state battery' });
    if (!outcome.ok) throw new Error(`expected results, got ${outcome.reason}: ${outcome.detail}`);
    expect(outcome.unresponsiveEngines).to.deep.equal(['brave', 'qwant']);
    expect(outcome.results).to.have.length(2);
    const [first, second] = outcome.results as [UpstreamResult, UpstreamResult];
    expect(first).to.deep.equal({
      url: 'https://www.example.com/battery?utm_source=feed&id=7',
      title: 'Solid-state batteries',
      snippet: 'A solid electrolyte replaces the liquid one.',
      publishedDate: new Date('2026-11-20T10:00:00Z'),
      engines: ['bing', 'duckduckgo', 'google'],
      score: 4,
      domain: 'www.example.com',
      language: null,
    });
    expect(second).to.deep.equal({
      url: 'https://news.example.org/cells',
      title: 'Title of https://news.example.org/cells',
      snippet: '',
      publishedDate: null,
      engines: ['bing'],
      score: null,
      domain: 'news.example.org',
      language: 'de-DE',
    });
    expect(await counted(metrics, 'ok')).to.equal(1);
  });

  it('reports an unusable answer as an error: a refused format, a page that is not JSON, JSON without results', async () => {
    const searxng = client(fake, metrics, { UPSTREAM_BREAKER_FAILURES: '10' });
    fake.handle = (_req, res) => {
      res.writeHead(403, { 'content-type': 'text/html' });
      res.end('<h1>403 Forbidden</h1>');
    };
    let outcome = await searxng.search({ query: 'q' });
    expect(outcome).to.deep.include({ ok: false, reason: 'error' });
    fake.handle = json({ error: 'format disabled' }, 403);
    outcome = await searxng.search({ query: 'q' });
    expect(outcome.ok === false && outcome.detail).to.include('json format');
    fake.handle = json({ query: 'q', answers: [] });
    outcome = await searxng.search({ query: 'q' });
    expect(outcome).to.deep.include({ ok: false, reason: 'error', detail: 'answer has no results array' });
    expect(await counted(metrics, 'error')).to.equal(3);
  });

  it('gives up on a slow instance at SEARXNG_TIMEOUT_MS and reports a timeout', async () => {
    fake.handle = json(answer([searxResult('https://example.com/late')]), 200, 3000);
    const started = Date.now();
    const outcome = await client(fake, metrics).search({ query: 'q' });
    const elapsed = Date.now() - started;
    expect(outcome).to.deep.include({ ok: false, reason: 'timeout' });
    expect(elapsed).to.be.within(250, 1000);
    expect(await counted(metrics, 'timeout')).to.equal(1);
  });

  it('ends the call at the caller\'s deadline without counting it against the instance', async () => {
    fake.handle = json(answer([]), 200, 3000);
    const searxng = client(fake, metrics, { SEARXNG_TIMEOUT_MS: '5000' });
    for (let i = 0; i < 4; i += 1) {
      const started = Date.now();
      const outcome = await searxng.search({ query: 'q', signal: AbortSignal.timeout(100) });
      expect(outcome).to.deep.include({ ok: false, reason: 'aborted' });
      expect(Date.now() - started).to.be.below(1000);
    }
    // Four aborted calls, breaker threshold 3: still closed, because the caller gave up, not SearXNG.
    expect(searxng.circuitState()).to.equal('closed');
    expect(await counted(metrics, 'timeout')).to.equal(4);
  });

  it('opens the circuit after repeated failures, then stops calling the instance', async () => {
    fake.handle = json({ error: 'boom' }, 500);
    const searxng = client(fake, metrics);
    for (let i = 0; i < 3; i += 1) expect(await searxng.search({ query: 'q' })).to.deep.include({ ok: false, reason: 'error' });
    expect(searxng.circuitState()).to.equal('open');
    expect(await circuitGauge(metrics)).to.equal(2);
    const outcome = await searxng.search({ query: 'q' });
    expect(outcome).to.deep.include({ ok: false, reason: 'circuit_open' });
    expect(fake.requests).to.have.length(3);
    expect(await counted(metrics, 'rejected_open')).to.equal(1);
    expect(await counted(metrics, 'error')).to.equal(3);
  });

  it('counts timeouts as failures too', async () => {
    fake.handle = json(answer([]), 200, 2000);
    const searxng = client(fake, metrics, { SEARXNG_TIMEOUT_MS: '100' });
    for (let i = 0; i < 3; i += 1) expect(await searxng.search({ query: 'q' })).to.deep.include({ ok: false, reason: 'timeout' });
    expect(searxng.circuitState()).to.equal('open');
  });

  it('forgets failures older than the window and after a success', async () => {
    const searxng = client(fake, metrics, { UPSTREAM_BREAKER_WINDOW_MS: '300' });
    fake.handle = json({}, 502);
    await searxng.search({ query: 'q' });
    await searxng.search({ query: 'q' });
    await sleep(350);
    await searxng.search({ query: 'q' });
    expect(searxng.circuitState(), 'two of three failures fell out of the window').to.equal('closed');
    await searxng.search({ query: 'q' });
    fake.handle = json(answer([]));
    await searxng.search({ query: 'q' });
    fake.handle = json({}, 502);
    await searxng.search({ query: 'q' });
    await searxng.search({ query: 'q' });
    expect(searxng.circuitState(), 'a success in between restarts the count').to.equal('closed');
  });

  it('half-opens after the cool-down, lets one probe through and closes when it succeeds', async () => {
    fake.handle = json({}, 500);
    const searxng = client(fake, metrics);
    for (let i = 0; i < 3; i += 1) await searxng.search({ query: 'q' });
    expect(searxng.circuitState()).to.equal('open');
    await sleep(450);
    expect(searxng.circuitState()).to.equal('half_open');
    expect(await circuitGauge(metrics)).to.equal(1);

    fake.handle = json(answer([searxResult('https://example.com/back')]), 200, 150);
    const [probe, meanwhile] = await Promise.all([searxng.search({ query: 'q' }), searxng.search({ query: 'q' })]);
    expect(probe.ok).to.equal(true);
    expect(meanwhile, 'only one probe while half-open').to.deep.include({ ok: false, reason: 'circuit_open' });
    expect(fake.requests).to.have.length(4);
    expect(searxng.circuitState()).to.equal('closed');
    expect(await circuitGauge(metrics)).to.equal(0);
    expect((await searxng.search({ query: 'q' })).ok).to.equal(true);
  });

  it('opens again for a new cool-down when the probe fails', async () => {
    fake.handle = json({}, 500);
    const searxng = client(fake, metrics);
    for (let i = 0; i < 3; i += 1) await searxng.search({ query: 'q' });
    await sleep(450);
    expect(await searxng.search({ query: 'q' })).to.deep.include({ ok: false, reason: 'error' });
    expect(searxng.circuitState()).to.equal('open');
    expect(await searxng.search({ query: 'q' })).to.deep.include({ ok: false, reason: 'circuit_open' });
    expect(fake.requests).to.have.length(4);
  });
});

describe('upstream result filters', () => {
  const now = new Date('2026-11-22T12:00:00Z');
  const daysAgo = (days: number) => new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
  const result = (url: string, publishedDate: Date | null = null, language: string | null = null): UpstreamResult => ({
    url,
    title: url,
    snippet: '',
    publishedDate,
    engines: ['bing'],
    score: null,
    domain: new URL(url).hostname,
    language,
  });
  const urls = (results: UpstreamResult[]) => results.map((r) => r.url);

  const results = [
    result('https://example.com/a'),
    result('https://www.example.com/b'),
    result('https://docs.sub.example.com/c'),
    result('https://notexample.com/d'),
    result('https://example.org/e'),
  ];

  it('keeps included domains with their subdomains, and nothing else', () => {
    expect(urls(applyResultFilters(results, { includeDomains: ['example.com'] }, now))).to.deep.equal([
      'https://example.com/a',
      'https://www.example.com/b',
      'https://docs.sub.example.com/c',
    ]);
    expect(urls(applyResultFilters(results, { includeDomains: ['sub.example.com', 'example.org'] }, now))).to.deep.equal([
      'https://docs.sub.example.com/c',
      'https://example.org/e',
    ]);
  });

  it('drops excluded domains with their subdomains, also from the included ones', () => {
    expect(urls(applyResultFilters(results, { excludeDomains: ['example.com'] }, now))).to.deep.equal(['https://notexample.com/d', 'https://example.org/e']);
    expect(urls(applyResultFilters(results, { includeDomains: ['example.com'], excludeDomains: ['sub.example.com'] }, now))).to.deep.equal([
      'https://example.com/a',
      'https://www.example.com/b',
    ]);
  });

  it('drops results published before the recency period, keeping undated ones', () => {
    const dated = [
      result('https://example.com/today', daysAgo(0.5)),
      result('https://example.com/last-week', daysAgo(5)),
      result('https://example.com/last-month', daysAgo(20)),
      result('https://example.com/old', daysAgo(400)),
      result('https://example.com/undated'),
    ];
    expect(urls(applyResultFilters(dated, { recency: 'day' }, now))).to.deep.equal(['https://example.com/today', 'https://example.com/undated']);
    expect(urls(applyResultFilters(dated, { recency: 'week' }, now))).to.have.length(3);
    expect(urls(applyResultFilters(dated, { recency: 'month' }, now))).to.have.length(4);
    expect(urls(applyResultFilters(dated, { recency: 'year' }, now))).to.not.include('https://example.com/old');
  });

  it('drops results in another language, when the result declares one', () => {
    const mixed = [result('https://a.example/en', null, 'en-US'), result('https://a.example/de', null, 'de-DE'), result('https://a.example/none'), result('https://a.example/EN', null, 'EN')];
    expect(urls(applyResultFilters(mixed, { language: 'en' }, now))).to.deep.equal(['https://a.example/en', 'https://a.example/none', 'https://a.example/EN']);
  });

  it('applies nothing without filters', () => {
    expect(applyResultFilters(results, {}, now)).to.deep.equal(results);
  });
});
