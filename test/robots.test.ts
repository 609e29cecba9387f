import { expect } from 'chai';
import zlib from 'node:zlib';
import type { FetchOptions } from '../src/fetch/fetch-page.js';
import { fetchPage } from './helpers/fetch-as-client.js';
import { crawlDelay, productToken, robotsAllows, type RobotsOptions } from '../src/fetch/robots.js';
import { html, raw, startPageServer, type PageHandler, type PageServer } from './helpers/page-server.js';
import { failure } from './helpers/rejection.js';

const ROBOTS = `# test rules
User-agent: *
Disallow: /private

User-agent: sev-test
Disallow: /no-sev
Allow: /no-sev/ok
Crawl-delay: 3
`;

interface Site extends PageServer {
  /** Requests per path. */
  readonly hits: Map<string, number>;
}

describe('robots.txt', function () {
  this.timeout(10_000);

  const sites: PageServer[] = [];
  const robotsOptions: RobotsOptions = { userAgent: 'sev-test/1.0 (+https://example.test/bot)', allowedCidrs: ['127.0.0.1/32'] };
  const fetchOptions: FetchOptions = { timeoutMs: 3000, maxBytes: 1_000_000, maxRedirects: 3, respectRobots: true, ...robotsOptions };

  /** A new server, so a new origin, so a robots.txt nobody has cached yet. */
  async function site(routes: Record<string, PageHandler>): Promise<Site> {
    const hits = new Map<string, number>();
    const counted: Record<string, PageHandler> = {};
    for (const [path, handler] of Object.entries(routes)) {
      counted[path] = (req, res) => {
        hits.set(path, (hits.get(path) ?? 0) + 1);
        handler(req, res);
      };
    }
    const server = await startPageServer(counted);
    sites.push(server);
    return { ...server, hits };
  }

  const robots = (text: string, status = 200): PageHandler => raw(text, { 'content-type': 'text/plain' }, status);
  const ok = html('<p>content</p>');

  afterEach(async () => {
    await Promise.all(sites.splice(0).map((s) => s.close()));
  });

  describe('productToken', () => {
    it('is the leading name of the User-Agent', () => {
      expect(productToken('sev-api/0.1 (+https://github.com/sev-api)')).to.equal('sev-api');
      expect(productToken('SevBot')).to.equal('SevBot');
    });

    it('is the name after "compatible;" in a browser-style User-Agent', () => {
      expect(productToken('Mozilla/5.0 (compatible; SevBot/2.1; +https://example.test/bot)')).to.equal('SevBot');
      expect(productToken('Mozilla/5.0 (X11; Linux x86_64)')).to.equal('Mozilla');
    });

    it('falls back to the * group without a name', () => {
      expect(productToken('')).to.equal('*');
    });
  });

  describe('rules', () => {
    it('applies the group of our product token, and only that group', async () => {
      const s = await site({ '/robots.txt': robots(ROBOTS) });
      expect(await robotsAllows(`${s.url}/no-sev/page`, robotsOptions)).to.equal(false);
      expect(await robotsAllows(`${s.url}/no-sev/ok/page`, robotsOptions)).to.equal(true);
      expect(await robotsAllows(`${s.url}/private/page`, robotsOptions)).to.equal(true);
      expect(await robotsAllows(`${s.url}/`, robotsOptions)).to.equal(true);
    });

    it('applies the * group to other crawlers', async () => {
      const s = await site({ '/robots.txt': robots(ROBOTS) });
      const other = { ...robotsOptions, userAgent: 'OtherBot/1.0' };
      expect(await robotsAllows(`${s.url}/private/page`, other)).to.equal(false);
      expect(await robotsAllows(`${s.url}/no-sev/page`, other)).to.equal(true);
    });

    it('reports the Crawl-delay of our group', async () => {
      const s = await site({ '/robots.txt': robots(ROBOTS) });
      expect(await crawlDelay(`${s.url}/`, robotsOptions)).to.equal(3);
      expect(await crawlDelay(`${s.url}/`, { ...robotsOptions, userAgent: 'OtherBot/1.0' })).to.equal(undefined);
    });

    it('ignores a Crawl-delay that is no number and caps a huge one', async () => {
      const unit = await site({ '/robots.txt': robots('User-agent: *\nCrawl-delay: 10s\n') });
      expect(await crawlDelay(`${unit.url}/`, robotsOptions)).to.equal(undefined);
      const day = await site({ '/robots.txt': robots('User-agent: *\nCrawl-delay: 86400\n') });
      expect(await crawlDelay(`${day.url}/`, robotsOptions)).to.equal(60);
    });

    it('always allows /robots.txt itself', async () => {
      const s = await site({ '/robots.txt': robots('User-agent: *\nDisallow: /\n') });
      expect(await robotsAllows(`${s.url}/anything`, robotsOptions)).to.equal(false);
      expect(await robotsAllows(`${s.url}/robots.txt`, robotsOptions)).to.equal(true);
    });

    it('reads a compressed robots.txt', async () => {
      const s = await site({
        '/robots.txt': raw(zlib.gzipSync('User-agent: *\nDisallow: /zipped\n'), { 'content-type': 'text/plain', 'content-encoding': 'gzip' }),
      });
      expect(await robotsAllows(`${s.url}/zipped`, robotsOptions)).to.equal(false);
    });

    it('reads the first 512 KiB and ignores the rest', async () => {
      const big = `User-agent: *\nDisallow: /early\n${'# filler\n'.repeat(70_000)}Disallow: /late\n`;
      expect(big.length).to.be.greaterThan(600 * 1024);
      const s = await site({ '/robots.txt': robots(big) });
      expect(await robotsAllows(`${s.url}/early`, robotsOptions)).to.equal(false);
      expect(await robotsAllows(`${s.url}/late`, robotsOptions)).to.equal(true);
    });

    it('follows redirects and applies the rules found to the origin asked about', async () => {
      const s = await site({
        '/robots.txt': raw('', { location: '/robots/real.txt' }, 301),
        '/robots/real.txt': robots('User-agent: *\nDisallow: /moved\n'),
      });
      expect(await robotsAllows(`${s.url}/moved`, robotsOptions)).to.equal(false);
      expect(s.hits.get('/robots/real.txt')).to.equal(1);
    });
  });

  describe('when robots.txt cannot be had (RFC 9309 2.3.1)', () => {
    it('allows everything for a 4xx', async () => {
      for (const status of [401, 403, 404, 410]) {
        const s = await site({ '/robots.txt': robots('User-agent: *\nDisallow: /\n', status) });
        expect(await robotsAllows(`${s.url}/page`, robotsOptions), String(status)).to.equal(true);
      }
    });

    it('allows nothing for a 5xx, or a 429', async () => {
      for (const status of [500, 503, 429]) {
        const s = await site({ '/robots.txt': robots('', status) });
        expect(await robotsAllows(`${s.url}/page`, robotsOptions), String(status)).to.equal(false);
      }
    });

    it('allows nothing when there is no response, and the fetch says why', async () => {
      const s = await site({ '/robots.txt': raw('', { location: 'http://127.0.0.2/robots.txt' }, 302), '/page': ok });
      expect(await robotsAllows(`${s.url}/page`, robotsOptions)).to.equal(false);
      const error = await failure(fetchPage(`${s.url}/page`, fetchOptions));
      expect(error.code).to.equal('URL_UNREACHABLE');
      expect(error.details).to.deep.equal({ url: `${s.url}/page`, reason: 'robots.txt: address not allowed: 127.0.0.2' });
      expect(s.hits.get('/page')).to.equal(undefined);
    });

    it('reports a host that does not resolve as unreachable', async () => {
      // The reserved .invalid TLD never resolves, so no connection is ever attempted.
      const url = 'http://robots-test.invalid/page';
      const error = await failure(fetchPage(url, fetchOptions));
      expect(error.details).to.deep.equal({ url, reason: 'robots.txt: host not found' });
      expect(await robotsAllows(url, robotsOptions)).to.equal(false);
    });
  });

  describe('in fetchPage', () => {
    it('refuses a disallowed page with EXTRACTION_FAILED, without requesting it', async () => {
      const s = await site({ '/robots.txt': robots(ROBOTS), '/no-sev/page': ok });
      const error = await failure(fetchPage(`${s.url}/no-sev/page`, fetchOptions));
      expect(error.code).to.equal('EXTRACTION_FAILED');
      expect(error.details).to.deep.equal({ reason: 'blocked by robots.txt' });
      expect(s.hits.get('/no-sev/page')).to.equal(undefined);
    });

    it('fetches an allowed page', async () => {
      const s = await site({ '/robots.txt': robots(ROBOTS), '/private/page': ok });
      expect((await fetchPage(`${s.url}/private/page`, fetchOptions)).body.toString()).to.equal('<p>content</p>');
    });

    it('checks every redirect target', async () => {
      const s = await site({ '/robots.txt': robots(ROBOTS), '/start': raw('', { location: '/no-sev/target' }, 302), '/no-sev/target': ok });
      const error = await failure(fetchPage(`${s.url}/start`, fetchOptions));
      expect(error.details).to.deep.equal({ reason: 'blocked by robots.txt' });
      expect(s.hits.get('/start')).to.equal(1);
      expect(s.hits.get('/no-sev/target')).to.equal(undefined);
    });

    it('does not look at robots.txt unless asked to', async () => {
      const s = await site({ '/robots.txt': robots(ROBOTS), '/no-sev/page': ok });
      await fetchPage(`${s.url}/no-sev/page`, { ...fetchOptions, respectRobots: false });
      expect(s.hits.get('/robots.txt')).to.equal(undefined);
    });

    it('fetches robots.txt once per origin, shared by simultaneous fetches', async () => {
      const s = await site({ '/robots.txt': robots(ROBOTS), '/page': ok });
      await Promise.all(Array.from({ length: 5 }, () => fetchPage(`${s.url}/page`, fetchOptions)));
      await fetchPage(`${s.url}/page`, fetchOptions);
      expect(s.hits.get('/robots.txt')).to.equal(1);
      expect(s.hits.get('/page')).to.equal(6);
    });

    it('counts a slow robots.txt against the fetch deadline', async () => {
      const s = await site({ '/robots.txt': () => undefined, '/page': ok });
      const started = Date.now();
      const error = await failure(fetchPage(`${s.url}/page`, { ...fetchOptions, timeoutMs: 300 }));
      expect(error.details).to.deep.equal({ url: `${s.url}/page`, reason: 'timed out after 0.3s' });
      expect(Date.now() - started).to.be.lessThan(1000);
    });
  });

  describe('cache', () => {
    const realNow = Date.now;
    afterEach(() => {
      Date.now = realNow;
    });

    function advance(ms: number): void {
      const offset = ms;
      Date.now = () => realNow() + offset;
    }

    it('keeps an answer for an hour', async () => {
      const s = await site({ '/robots.txt': robots(ROBOTS) });
      await robotsAllows(`${s.url}/a`, robotsOptions);
      advance(59 * 60 * 1000);
      await robotsAllows(`${s.url}/b`, robotsOptions);
      expect(s.hits.get('/robots.txt')).to.equal(1);
      advance(61 * 60 * 1000);
      await robotsAllows(`${s.url}/c`, robotsOptions);
      expect(s.hits.get('/robots.txt')).to.equal(2);
    });

    it('asks again a minute after a failure', async () => {
      const s = await site({ '/robots.txt': robots('', 503) });
      await robotsAllows(`${s.url}/a`, robotsOptions);
      await robotsAllows(`${s.url}/b`, robotsOptions);
      expect(s.hits.get('/robots.txt')).to.equal(1);
      advance(61 * 1000);
      await robotsAllows(`${s.url}/c`, robotsOptions);
      expect(s.hits.get('/robots.txt')).to.equal(2);
    });
  });
});
