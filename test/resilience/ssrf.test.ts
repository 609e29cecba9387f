import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import pLimit from 'p-limit';
import { startCanary, watchConnections, type Canary, type ConnectionWitness } from '../helpers/canary.js';
import { startJsonServer, type JsonServer } from '../helpers/json-server.js';
import { ARTICLE } from '../helpers/page-server.js';
import { call, startTestService, type TestService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';
import { SSRF_CASE_COUNT, ssrfCases, type SsrfCase } from './ssrf-cases.js';

// The SSRF battery (docs/resilience.md, "SSRF battery"): every case of ssrf-cases.ts, on every
// entry point that makes the service connect somewhere a client or a page chose, is refused
// with the catalogued error, and neither the canary listening on loopback nor the witness of
// every connection attempt this process makes sees a connection to the case's port.
//
// The service runs with the guard on: FETCH_ALLOW_PRIVATE allows only 127.0.0.2/32, where the
// local site lives (it serves the redirects and the pages of links), so 127.0.0.1 and ::1, where
// the canary listens, are refused like any other non-public address.

const SITE_ADDRESS = '127.0.0.2';
/** Longest wait for a crawl of refused pages to finish (it takes about a second). */
const CRAWL_WAIT_MS = 30_000;
/** Cases per crawl: a crawl lists at most 100 failures. */
const CRAWL_BATCH = 50;
/** Cases per search: deep search reads at most SEARCH_DEEP_PAGES (20) pages. */
const SEARCH_BATCH = 20;

/**
 * A local site the guard allows: redirects (/r/<status>?to=<url>, any method), a page of links
 * (/links), a sitemap (listed in robots.txt, which sets no crawl delay), and an article (/page).
 */
interface Site {
  url: string;
  /** The URLs /links links to and /sitemap.xml lists. */
  targets: string[];
  close(): Promise<void>;
}

/** @param robots when given, robots.txt answers this redirect instead of its rules. */
async function startSite(robots?: { status: number; location: string }): Promise<Site> {
  const targets: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const url = new URL(req.url ?? '/', 'http://site');
    const redirect = /^\/r\/(\d{3})$/.exec(url.pathname);
    const send = (type: string, body: string) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    };
    if (redirect) {
      res.writeHead(Number(redirect[1]), { location: url.searchParams.get('to') ?? '/' });
      res.end();
    } else if (url.pathname === '/robots.txt' && robots) {
      res.writeHead(robots.status, { location: robots.location });
      res.end();
    } else if (url.pathname === '/robots.txt') {
      send('text/plain', `User-agent: *\nCrawl-delay: 0\nSitemap: ${origin}/sitemap.xml\n`);
    } else if (url.pathname === '/sitemap.xml') {
      send('application/xml', `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${
        targets.map((target) => `<url><loc>${escapeMarkup(target)}</loc></url>`).join('')}</urlset>`);
    } else if (url.pathname === '/links') {
      send('text/html; charset=utf-8', page(targets.map((href, i) => `<li><a href="${escapeMarkup(href)}">link ${i}</a></li>`).join('\n')));
    } else if (url.pathname === '/page' || url.pathname === '/') {
      send('text/html; charset=utf-8', url.pathname === '/page' ? ARTICLE : page(''));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, SITE_ADDRESS, resolve));
  const origin = `http://${SITE_ADDRESS}:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    targets,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function page(list: string): string {
  return `<!doctype html><html lang="en"><head><title>Links</title></head><body><article><h1>Links</h1>
    <p>A page whose links lead where the crawler must not go.</p><ul>${list}</ul></article></body></html>`;
}

function escapeMarkup(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** The URL as the crawl frontier keeps it: parsed, without its fragment. */
function frontierUrl(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  return parsed.href;
}

/**
 * The case's URL with a path of its own. Ranking merges results of one host name and path
 * (whatever the port) as copies of one page, and reads only the one it keeps; the engine's
 * URLs are normalised before they are read anyway (0x7f.1 is 127.0.0.1 by then).
 */
function ownPath(c: SsrfCase): string {
  if (c.redirect) return c.url;
  const url = new URL(c.url);
  url.pathname = `/case-${c.port}`;
  return url.href;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** What the fetcher says when it refuses the case (robots.txt is fetched first where it is obeyed, and refused the same way). */
function fetchReason(c: SsrfCase): RegExp {
  if (c.refusal.kind === 'scheme') return /^(robots\.txt: )?redirect to a non-http\(s\) URL$/;
  const addresses = c.refusal.addresses.map(escapeRegExp).join('|');
  return new RegExp(`^(robots\\.txt: )?(address not allowed: (${addresses})${c.refusal.unresolved ? '|host not found' : ''})$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

interface Failure {
  code: string;
  reason: string;
}

/** The cases whose failure, found under `key(c)`, is not URL_UNREACHABLE with the refusal's reason; described for the assertion. */
function misrefused(batch: readonly SsrfCase[], failures: ReadonlyMap<string, Failure>, key: (c: SsrfCase) => string): string[] {
  return batch.flatMap((c) => {
    const f = failures.get(key(c));
    return f?.code === 'URL_UNREACHABLE' && fetchReason(c).test(f.reason) ? [] : [`${describeCase(c)}: ${JSON.stringify(f)}`];
  });
}

function describeCase(c: SsrfCase): string {
  return `${c.class}: ${c.name} (${c.url})`;
}

describe('SSRF battery: every case refused on every entry point, no connection made', function () {
  this.timeout(60_000);
  let canary: Canary;
  let control: Canary;
  let witness: ConnectionWitness;
  /** One site per crawl batch; the first also serves the cases' redirects. */
  let sites: Site[];
  let engine: JsonServer;
  let service: TestService;
  let cases: SsrfCase[];
  /** What the engine answers to a query naming "batch<n>". */
  const engineResults = new Map<string, SsrfCase[]>();

  before(async () => {
    // Held at the sites' address too, so that no site takes a case's port there. The cases
    // never target that address; the control does: the guard allows it.
    canary = await startCanary(SSRF_CASE_COUNT, [SITE_ADDRESS]);
    control = await startCanary(1, [SITE_ADDRESS]);
    sites = await Promise.all(Array.from({ length: Math.ceil(SSRF_CASE_COUNT / CRAWL_BATCH) }, () => startSite()));
    engine = await startJsonServer((request) => {
      const batch = /batch(\d+)/.exec(request.url.searchParams.get('q') ?? '')?.[1];
      const results = (engineResults.get(batch ?? '') ?? []).map((c, i) => ({
        url: ownPath(c), title: `Canary batch${batch} page ${i}`, content: `The canary batch${batch} page ${i} is where the result leads.`, engine: 'test',
      }));
      return { body: { query: request.url.searchParams.get('q'), results } };
    });
    cases = ssrfCases(canary.ports, sites[0]!.url);
    chunks(cases, CRAWL_BATCH).forEach((batch, i) => sites[i]!.targets.push(...batch.map((c) => c.url)));
    chunks(cases, SEARCH_BATCH).forEach((batch, i) => engineResults.set(String(i), batch));
    service = await startTestService({
      FETCH_ALLOW_PRIVATE: `${SITE_ADDRESS}/32`,
      SEARXNG_URL: engine.url,
      SEARCH_DEEP_PAGES: String(SEARCH_BATCH),
      SEARCH_MAX_PER_DOMAIN: '0',
      NOTIFY_MAX_ATTEMPTS: '1',
      // Several hundred requests from one address within the minute.
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    witness = watchConnections();
  });
  after(async () => {
    witness?.stop();
    await service?.close();
    await engine?.close();
    await Promise.all((sites ?? []).map((s) => s.close()));
    await control?.close();
    await canary?.close();
  });

  /** Fails naming every case whose port the canary or the witness saw a connection to. */
  function expectNoConnection(): void {
    const breached = cases
      .filter((c) => canary.hits(c.port) > 0 || witness.to([c.port]).length > 0)
      .map((c) => `${describeCase(c)}: canary ${canary.hits(c.port)}, attempts ${JSON.stringify(witness.to([c.port]))}`);
    expect(breached, breached.join('\n')).to.deep.equal([]);
  }

  it('holds at least 60 cases, each on a port of its own', () => {
    expect(cases.length).to.be.at.least(60);
    expect(new Set(cases.map((c) => c.port)).size).to.equal(cases.length);
  });

  it('sees a connection when one is made: the canary counts it, the witness sees the service attempt it', async () => {
    const port = control.ports[0]!;
    // The test's own connections to the loopback addresses the cases target.
    const loopback = control.addresses.filter((a) => a !== SITE_ADDRESS);
    for (const address of loopback) {
      await new Promise<void>((resolve, reject) => {
        const socket = net.connect(port, address, () => {
          socket.destroy();
          resolve();
        });
        socket.on('error', reject);
      });
    }
    await eventually(async () => (control.hits(port) === loopback.length ? true : undefined));
    // The service connecting where the guard allows (the canary hangs up: the fetch fails, after connecting).
    const res = await call(service.url, '/v1/extract', { body: { url: `http://${SITE_ADDRESS}:${port}/` } });
    expect(res.status, JSON.stringify(res.json)).to.equal(422);
    expect(res.json.error.details.reason).to.not.match(/address not allowed/);
    expect(control.hits(port)).to.be.greaterThan(loopback.length);
    expect(witness.to([port]).map((a) => a.address)).to.include(SITE_ADDRESS);
    // And the allowed site is read: the guard does not refuse everything.
    const page = await call(service.url, '/v1/extract', { body: { url: `${sites[0]!.url}/page` } });
    expect(page.status, JSON.stringify(page.json)).to.equal(200);
  });

  it('POST /v1/extract refuses every case with URL_UNREACHABLE', async () => {
    const limit = pLimit(8);
    const wrong: string[] = [];
    await Promise.all(cases.map((c) => limit(async () => {
      const res = await call(service.url, '/v1/extract', { body: { url: c.url } });
      const error = res.json?.error;
      if (res.status !== 422 || error?.details?.url !== c.url) wrong.push(`${describeCase(c)}: ${res.status} ${JSON.stringify(res.json)}`);
      else wrong.push(...misrefused([c], new Map([[c.url, { code: error.code, reason: error.details.reason }]]), (x) => x.url));
    })));
    expect(wrong, wrong.join('\n')).to.deep.equal([]);
    expectNoConnection();
  });

  it('POST /v1/validate refuses every case given as a source, each named in failed_sources', async () => {
    const wrong: string[] = [];
    for (const batch of chunks(cases, 50)) {
      const res = await call(service.url, '/v1/validate', {
        body: { claim: 'The canary page says the port is closed.', sources: batch.map((c) => c.url), options: { max_sources: 50 } },
      });
      expect(res.status, JSON.stringify(res.json)).to.equal(422);
      expect(res.json.error.code).to.equal('INSUFFICIENT_SOURCES');
      const failed = new Map<string, Failure>(res.json.error.details.failed_sources.map((f: Failure & { source: string }) => [f.source, f]));
      wrong.push(...misrefused(batch, failed, (c) => c.url));
    }
    expect(wrong, wrong.join('\n')).to.deep.equal([]);
    expectNoConnection();
  });

  it('POST /v1/validate without sources refuses every case the upstream engine returns', async () => {
    const wrong: string[] = [];
    for (const [batch, batchCases] of engineResults) {
      const res = await call(service.url, '/v1/validate', { body: { claim: `The canary batch${batch} page is closed.`, options: { max_sources: 50 } } });
      // Nothing readable: INSUFFICIENT_SOURCES; unless the run's index has a page about canaries, judged while the cases are listed as failed.
      const failedList = res.status === 200 ? res.json.data.metadata.sources_failed : res.json.error?.details?.failed_sources;
      expect(failedList, JSON.stringify(res.json)).to.be.an('array');
      const failed = new Map<string, Failure>(failedList.map((f: Failure & { source: string }) => [f.source, f]));
      wrong.push(...misrefused(batchCases, failed, (c) => frontierUrl(ownPath(c))));
    }
    expect(wrong, wrong.join('\n')).to.deep.equal([]);
    expectNoConnection();
  });

  /** Starts a crawl with the master key and returns it once finished. */
  async function crawl(body: Record<string, unknown>): Promise<any> {
    const started = await call(service.url, '/v1/crawl', { body: { sitemaps: false, ...body } });
    expect(started.status, JSON.stringify(started.json)).to.equal(202);
    return eventually(async () => {
      const res = await call(service.url, `/v1/crawl/${started.json.data.crawl_id}`);
      return ['completed', 'cancelled', 'failed'].includes(res.json.data.state) ? res.json.data : undefined;
    }, CRAWL_WAIT_MS);
  }

  /** Runs one crawl per batch of cases at once and checks each case among its failures, and how many pages besides them were fetched. */
  async function expectCrawlsRefuse(size: number, body: (batch: readonly SsrfCase[], i: number) => Record<string, unknown>, fetchedBesides: number): Promise<void> {
    const crawls = await Promise.all(chunks(cases, size).map(async (batch, i) => ({ batch, crawled: await crawl(body(batch, i)) })));
    const wrong = crawls.flatMap(({ batch, crawled }) => {
      expect(crawled.state, JSON.stringify(crawled)).to.equal('completed');
      expect(crawled.pages, JSON.stringify(crawled)).to.deep.include({ fetched: fetchedBesides, failed: batch.length });
      const failures = new Map<string, Failure>(crawled.failures.map((f: Failure & { url: string }) => [f.url, f]));
      return misrefused(batch, failures, (c) => frontierUrl(c.url));
    });
    expect(wrong, wrong.join('\n')).to.deep.equal([]);
    expectNoConnection();
  }

  it('POST /v1/crawl refuses every case as a seed', async () => {
    // At most 20 seeds a crawl.
    await expectCrawlsRefuse(20, (batch) => ({ urls: batch.map((c) => c.url), max_depth: 0 }), 0);
  });

  it('a crawl refuses every case found as a link on a page', async () => {
    await expectCrawlsRefuse(CRAWL_BATCH, (_, i) => ({ urls: [`${sites[i]!.url}/links`], max_depth: 1, same_domain: false }), 1);
  });

  it('a crawl refuses every case listed in a sitemap', async () => {
    await expectCrawlsRefuse(CRAWL_BATCH, (_, i) => ({ urls: [`${sites[i]!.url}/`], max_depth: 1, same_domain: false, sitemaps: true }), 1);
  });

  it('a robots.txt that redirects leads nowhere the guard refuses (extract obeying robots.txt)', async () => {
    const redirecting = cases.filter((c) => c.redirect);
    // A site per case: robots.txt answers are cached per origin.
    const robotsSites = await Promise.all(redirecting.map((c) => {
      const url = new URL(c.url);
      return startSite({ status: Number(url.pathname.slice('/r/'.length)), location: url.searchParams.get('to')! });
    }));
    try {
      const wrong: string[] = [];
      await Promise.all(redirecting.map(async (c, i) => {
        const res = await call(service.url, '/v1/extract', { body: { url: `${robotsSites[i]!.url}/page`, options: { respect_robots: true } } });
        const error = res.json?.error;
        const failures = new Map([['robots', { code: error?.code, reason: error?.details?.reason }]]);
        if (res.status !== 422 || !String(error?.details?.reason).startsWith('robots.txt: ')) wrong.push(`${describeCase(c)}: ${res.status} ${JSON.stringify(res.json)}`);
        else wrong.push(...misrefused([c], failures, () => 'robots'));
      }));
      expect(wrong, wrong.join('\n')).to.deep.equal([]);
    } finally {
      await Promise.all(robotsSites.map((s) => s.close()));
    }
    expectNoConnection();
  });

  it('deep search reads none of the cases the upstream engine returns', async () => {
    for (const [batch, batchCases] of engineResults) {
      const res = await call(service.url, '/v1/search', { body: { query: `canary batch${batch}`, max_results: 20, options: { deep_search: true, enable_cache: false } } });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      // Every page it set out to read failed; which refusal each met is not in the answer (the validation above shows the same reads' reasons).
      expect(res.json.data.metadata.deep_search, `batch ${batch}`).to.deep.equal({ pages_fetched: 0, pages_failed: batchCases.length });
    }
    expectNoConnection();
  });

  const alert = (c: SsrfCase, destinations: Record<string, unknown>) => ({
    name: `ssrf ${c.name}`, condition: 'error_rate > 5%', channels: Object.keys(destinations), ...destinations,
  });

  it('POST /v1/alerts refuses every case as a webhook or Slack destination when it is saved', async () => {
    const limit = pLimit(8);
    const wrong: string[] = [];
    const direct = cases.filter((c) => !c.redirect);
    await Promise.all(direct.flatMap((c) => [
      ['webhook.url', { webhook: { url: c.url } }] as const,
      ['slack.webhook_url', { slack: { webhook_url: c.url } }] as const,
    ].map(([parameter, destination]) => limit(async () => {
      const res = await call(service.url, '/v1/alerts', { body: alert(c, destination) });
      const error = res.json?.error;
      if (res.status !== 400 || error?.code !== 'INVALID_PARAMETER' || error.details?.parameter !== parameter || !/^address not allowed: /.test(error.details?.reason)) {
        wrong.push(`${describeCase(c)} as ${parameter}: ${res.status} ${JSON.stringify(res.json)}`);
      }
    }))));
    expect(wrong, wrong.join('\n')).to.deep.equal([]);
    expectNoConnection();
  });

  it('a webhook or Slack destination that redirects is not followed', async () => {
    const limit = pLimit(6);
    const wrong: string[] = [];
    await Promise.all(cases.filter((c) => c.redirect).map((c) => limit(async () => {
      const created = await call(service.url, '/v1/alerts', { body: alert(c, { webhook: { url: c.url }, slack: { webhook_url: c.url } }) });
      expect(created.status, JSON.stringify(created.json)).to.equal(200);
      const id = created.json.data.alert_id;
      const tested = await call(service.url, `/v1/alerts/${id}/test`, { method: 'POST' });
      expect(tested.status, JSON.stringify(tested.json)).to.equal(200);
      // The first redirect is answered, not followed: a failed try, dead since it is the only one allowed.
      const status = Number(/\/r\/(\d{3})/.exec(c.url)![1]);
      for (const d of tested.json.data.deliveries) {
        if (d.status !== 'dead' || d.last_status_code !== status || !/redirects are not followed/.test(d.last_error)) {
          wrong.push(`${describeCase(c)} by ${d.channel}: ${JSON.stringify(d)}`);
        }
      }
      await call(service.url, `/v1/alerts/${id}`, { method: 'DELETE' });
    })));
    expect(wrong, wrong.join('\n')).to.deep.equal([]);
    expectNoConnection();
  });
});
