/**
 * options.render through the whole service: real HTTP, the extract queue, a worker, the pool and
 * Debian's Chromium, against pages served by the test on 127.0.0.1.
 *
 * The service may reach 127.0.0.1 only (FETCH_ALLOW_PRIVATE=127.0.0.1/32), where the test's
 * pages are. The page that tries to reach private addresses aims at a canary listening on
 * 127.0.0.2 and ::1 (loopback too, but outside the allowed range), at 10.0.0.1 and at the cloud
 * metadata address: the canary counting no connection shows the refusal happened before any.
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { descendants } from '../src/render/process-memory.js';
import { startCanary, type Canary } from './helpers/canary.js';
import { appShell, storyScript } from './helpers/client-rendered.js';
import { html, raw, startPageServer, type PageServer } from './helpers/page-server.js';
import { expectSchema } from './helpers/response-schema.js';
import { call, startTestService, type TestService } from './helpers/service.js';
import { eventually } from './helpers/wait.js';

const PROSE = 'The harbour authority published the new tide tables on Monday, and the ferry timetable follows them from next week. ';
const STORY = {
  title: 'Tide tables for the winter',
  paragraphs: [`Drawn in the browser: ${PROSE.repeat(2)}`, `The second paragraph, also written by a script. ${PROSE}`],
};

/** A create-react-app style shell: nothing to read until /app.js has fetched the story and written it. */
const SHELL = appShell('Harbour news', '/app.js');

// Through a redirect: the browser is handed the 3xx and its next request is intercepted again.
const APP_JS = storyScript("'/api/old-story'");

/** Served as it is: an article in the HTML, and a script that would add a line if anyone ran it. */
const STATIC_ARTICLE = `<!doctype html><html lang="en"><head><title>Ferry timetable</title><script src="/app.js" defer></script></head>
<body><div id="root"><article><h1>Ferry timetable</h1><p>${PROSE.repeat(3)}</p><p>${PROSE.repeat(2)}</p></article></div>
<script>document.querySelector('article').insertAdjacentHTML('beforeend', '<p>A line only a browser would add.</p>')</script></body></html>`;

/** Content appears 1.2 s after load: later than network idle. */
const DELAYED = `<!doctype html><html><head><title>Later</title></head><body><div id="app"></div>
<script>setTimeout(() => { document.getElementById('app').innerHTML = '<article id="late"><h1>Arrived late</h1><p>${PROSE.repeat(3)}</p></article>'; }, 1200);</script></body></html>`;

/** The article is there at once, but a frame never finishes loading. */
const ENDLESS = `<!doctype html><html><head><title>Endless</title></head><body><article><h1>Never done</h1><p>${PROSE.repeat(3)}</p></article>
<iframe src="/hang"></iframe></body></html>`;

function leakyPage(canary: Canary): string {
  const port = canary.ports[0]!;
  const targets = [
    `http://127.0.0.2:${port}/fetch`,
    ...(canary.addresses.includes('::1') ? [`http://[::1]:${port}/fetch`] : []),
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    // Allowed itself, redirecting to the canary: every hop is judged.
    '/bounce',
  ];
  return `<!doctype html><html><head><title>Leaky</title></head><body><div id="root"></div>
<img src="/pixel.png"><iframe src="http://127.0.0.2:${port}/frame"></iframe>
<script>
Promise.allSettled(${JSON.stringify(targets)}.map((url) => fetch(url, { mode: 'no-cors' }))).then((results) => {
  document.getElementById('root').innerHTML = '<article><h1>Leaky page</h1><p>${PROSE.repeat(3)}</p><p>Outcomes: ' + results.map((r) => r.status).join(', ') + '.</p></article>';
});
</script></body></html>`;
}

/** The pid of the Chromium this process launched (Playwright starts it as a child of ours). */
async function chromiumPid(): Promise<number | undefined> {
  for (const pid of (await descendants(process.pid)) ?? []) {
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('--remote-debugging-pipe')) return pid;
  }
  return undefined;
}

describe('POST /v1/extract with options.render', function () {
  // Chromium starts in a second or two, more on a busy machine.
  this.timeout(60_000);
  let service: TestService;
  let site: PageServer;
  let canary: Canary;
  const hits = new Map<string, number>();
  const count = (path: string) => hits.set(path, (hits.get(path) ?? 0) + 1);
  const hanging: ServerResponse[] = [];
  let fragileCalls = 0;

  before(async () => {
    await fs.access('/usr/bin/chromium', fs.constants.X_OK).catch(() => {
      throw new Error('Chromium is not installed at /usr/bin/chromium: this test renders pages in it. '
        + 'Install the Debian package: apt-get install --no-install-recommends chromium (bash .ci/run does).');
    });
    canary = await startCanary(1, ['127.0.0.2']);
    site = await startPageServer({
      '/spa': html(SHELL),
      '/app.js': (req, res) => {
        count('/app.js');
        raw(APP_JS, { 'content-type': 'text/javascript' })(req, res);
      },
      '/api/old-story': raw('', { location: '/api/story' }, 302),
      '/api/story': raw(JSON.stringify(STORY), { 'content-type': 'application/json' }),
      '/article': html(STATIC_ARTICLE),
      '/delayed': html(DELAYED),
      '/endless': html(ENDLESS),
      '/hang': (_req, res) => {
        hanging.push(res);
      },
      '/leaky': html(leakyPage(canary)),
      '/bounce': (req, res) => raw('', { location: `http://127.0.0.2:${canary.ports[0]}/bounced` }, 302)(req, res),
      '/pixel.png': (req, res) => {
        count('/pixel.png');
        raw(Buffer.alloc(16), { 'content-type': 'image/png' })(req, res);
      },
      '/hog': html(`<!doctype html><html><head><title>Hog</title></head><body><article><p>${PROSE.repeat(3)}</p></article>
<script>const kept = []; for (;;) kept.push(new Array(4000000).fill(kept.length));</script></body></html>`),
      '/fragile': html(`<!doctype html><html><head><title>Fragile</title></head><body><div id="root"></div>
<script>fetch('/slow-data').then((r) => r.text()).then((text) => { document.getElementById('root').innerHTML = '<article><h1>Survived</h1><p>' + text + '</p></article>'; });</script></body></html>`),
      '/slow-data': (_req, res) => {
        fragileCalls++;
        if (fragileCalls === 1) {
          // The browser dies while the page waits for its data.
          void chromiumPid().then((pid) => {
            if (pid !== undefined) process.kill(pid, 'SIGKILL');
            setTimeout(() => res.end('too late'), 500);
          });
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`The second try got the data. ${PROSE.repeat(2)}`);
      },
    });
    service = await startTestService({ FETCH_ALLOW_PRIVATE: '127.0.0.1/32', RENDER_CONTEXTS: '2', RENDER_PAGE_HEAP_MB: '64' });
  });
  after(async () => {
    for (const res of hanging) res.destroy();
    await service?.close();
    await site?.close();
    await canary?.close();
  });

  const extract = (url: string, options: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    call(service.url, '/v1/extract', { body: { url, format: 'text', options, ...extra } });

  it('renders a client-rendered page, whose content only a script writes, and cleans the DOM like a static page', async () => {
    const plain = await extract(`${site.url}/spa`, {});
    expect(plain.status).to.equal(422);
    expect(plain.json.error).to.deep.include({ code: 'EXTRACTION_FAILED' });

    const res = await extract(`${site.url}/spa`, { render: 'always' });
    expect(res.status, JSON.stringify(res.json)).to.equal(200);
    const data = res.json.data;
    expectSchema('extract.response', data);
    expect(data.content).to.include('Drawn in the browser').and.include('also written by a script');
    expect(data.content).to.not.include('enable JavaScript');
    expect(data.metadata.title).to.equal('Harbour news');
    expect(data.render).to.deep.include({ mode: 'always', rendered: true, attempts: 1 });
    expect(data.render.blocked_requests).to.equal(0);
    expect(data.render.render_ms).to.be.a('number');
  });

  it('on auto, renders the client-rendered page and reads the static article as served', async () => {
    const before = hits.get('/app.js') ?? 0;
    const article = await extract(`${site.url}/article`, { render: 'auto' });
    expect(article.status).to.equal(200);
    expect(article.json.data.content).to.include('The harbour authority published').and.not.include('only a browser would add');
    expect(article.json.data.render).to.deep.include({ mode: 'auto', rendered: false, reason: 'no sign of a client-rendered app' });
    // Nothing ran the page's script.
    expect(hits.get('/app.js') ?? 0).to.equal(before);

    const app = await extract(`${site.url}/spa`, { render: 'auto' });
    expect(app.status).to.equal(200);
    expect(app.json.data.content).to.include('Drawn in the browser');
    expect(app.json.data.render).to.deep.include({ mode: 'auto', rendered: true });
    expect(app.json.data.render.signs).to.have.members(['empty-root', 'scripts-without-text', 'noscript-notice']);
  });

  it('refuses every request of the page to a private address, and images, counting each; no connection reaches the canary', async () => {
    const pixelsBefore = hits.get('/pixel.png') ?? 0;
    const res = await extract(`${site.url}/leaky`, { render: 'always' });
    expect(res.status, JSON.stringify(res.json)).to.equal(200);
    const { render, content } = res.json.data;
    expect(content).to.include('The harbour authority published').and.match(/Outcomes: (rejected, ?)+rejected\./);
    // 127.0.0.2 three times (the fetch, the frame, the redirect), ::1 when the machine has it, the metadata address, 10.0.0.1.
    const privateTargets = canary.addresses.includes('::1') ? 6 : 5;
    expect(render.blocked).to.deep.equal({ private_address: privateTargets, scheme: 0, resource_type: 1 });
    expect(render.blocked_requests).to.equal(privateTargets + 1);
    expect(canary.hits(canary.ports[0]!)).to.equal(0);
    expect(hits.get('/pixel.png') ?? 0).to.equal(pixelsBefore);

    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    const blocked = /^sev_render_blocked_requests_total\{reason="private_address",role="all"\} (\d+)/m.exec(metrics);
    expect(Number(blocked?.[1])).to.be.at.least(privateTargets);
    expect(metrics).to.match(/^sev_renders_total\{outcome="rendered",role="all"\} [1-9]/m);
  });

  it('waits for a selector or for milliseconds, and fails a page whose content is not there at the load event', async () => {
    const early = await extract(`${site.url}/delayed`, { render: 'always', wait_for: 'load' });
    expect(early.status).to.equal(422);
    expect(early.json.error.details.reason).to.equal('no main content found (rendered)');

    const selector = await extract(`${site.url}/delayed`, { render: 'always', wait_for: { selector: '#late p' } });
    expect(selector.status).to.equal(200);
    expect(selector.json.data.content).to.include('The harbour authority published');

    const waited = await extract(`${site.url}/delayed`, { render: 'always', wait_for: 2000 });
    expect(waited.status).to.equal(200);
    expect(waited.json.data.content).to.include('The harbour authority published');

    const missing = await extract(`${site.url}/delayed`, { render: 'always', wait_for: { selector: '#never' }, timeout: 3 });
    expect(missing.status).to.equal(422);
    expect(missing.json.error.details.reason).to.match(/^the selector "#never" did not appear within \d/);

    const bad = await extract(`${site.url}/delayed`, { render: 'always', wait_for: { selector: 'p[[' } });
    expect(bad.status).to.equal(400);
    expect(bad.json.error).to.deep.include({ code: 'INVALID_PARAMETER' });
    expect(bad.json.error.details).to.deep.include({ parameter: 'options.wait_for.selector', provided: 'p[[' });
  });

  it('answers a page that never finishes loading with 422 within its time-out', async () => {
    const started = Date.now();
    const res = await extract(`${site.url}/endless`, { render: 'always', timeout: 3 });
    const took = Date.now() - started;
    expect(res.status).to.equal(422);
    expect(res.json.error.code).to.equal('EXTRACTION_FAILED');
    expect(res.json.error.details.reason).to.match(/^the page did not finish loading within \d(\.\d)? s \(wait_for: networkidle\)$/);
    expect(took).to.be.within(2500, 5000);
  });

  it('launches the browser again when it dies mid-render, and renders the page on the second try', async () => {
    const res = await extract(`${site.url}/fragile`, { render: 'always' });
    expect(res.status, JSON.stringify(res.json)).to.equal(200);
    expect(res.json.data.content).to.include('The second try got the data');
    expect(res.json.data.render.attempts).to.equal(2);
    expect(fragileCalls).to.equal(2);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).to.match(/^sev_render_browser_restarts_total\{cause="crash",role="all"\} [1-9]/m);
    // And it goes on rendering.
    expect((await extract(`${site.url}/spa`, { render: 'always' })).status).to.equal(200);
    // Health reports the running browser and its restart, from the worker's next heartbeat (the
    // page's context is closed just after its answer).
    const renderer = await eventually(async () => {
      const reported = (await call(service.url, '/v1/health')).json.data.services.renderer;
      return reported.contexts_in_use === 0 ? reported : undefined;
    });
    expect(renderer).to.deep.include({ status: 'healthy', available: true, workers: 1, workers_with_browser: 1, running: 1, contexts: 2, waiting: 0 });
    expect(renderer.restarts).to.be.at.least(1);
  });

  it('fails a page that fills its renderer\'s heap after one retry, and renders the next page', async () => {
    const res = await extract(`${site.url}/hog`, { render: 'always', timeout: 30 });
    expect(res.status, JSON.stringify(res.json)).to.equal(422);
    expect(res.json.error.details.reason).to.equal('the page crashed its renderer twice (out of its RENDER_PAGE_HEAP_MB of heap, or a renderer fault)');
    expect((await extract(`${site.url}/spa`, { render: 'always' })).status).to.equal(200);
  });

  it('refuses a render option or wait_for outside the schema', async () => {
    const mode = await extract(`${site.url}/spa`, { render: 'sometimes' });
    expect(mode.status).to.equal(400);
    const wait = await extract(`${site.url}/spa`, { render: 'always', wait_for: 'forever' });
    expect(wait.status).to.equal(400);
  });
});

describe('POST /v1/extract with options.render and no browser installed', () => {
  let service: TestService;
  let site: PageServer;

  before(async () => {
    site = await startPageServer({
      '/spa': html(SHELL),
      '/thin': html(`<!doctype html><html><head><title>Thin</title><script src="/app.js"></script></head><body><div id="root"></div>
<p>Only a short line is served with this page, not much to read without its script.</p></body></html>`),
      '/article': html(STATIC_ARTICLE),
    });
    service = await startTestService({ CHROMIUM_PATH: '/nonexistent/chromium' });
  });
  after(async () => {
    await service?.close();
    await site?.close();
  });

  const extract = (url: string, options: Record<string, unknown>) => call(service.url, '/v1/extract', { body: { url, format: 'text', options } });

  it('is healthy without a browser, saying rendering is not available', async () => {
    const health = (await call(service.url, '/v1/health')).json.data;
    expect(health.status).to.equal('healthy');
    expect(health.services.renderer).to.deep.include({ status: 'healthy', available: false, workers: 1, workers_with_browser: 0, running: 0 });
  });

  it('answers render "always" with 503 naming the missing browser', async () => {
    const res = await extract(`${site.url}/spa`, { render: 'always' });
    expect(res.status).to.equal(503);
    expect(res.json.error.code).to.equal('SERVICE_UNAVAILABLE');
    expect(res.json.error.message).to.include('/nonexistent/chromium').and.include('CHROMIUM_PATH');
  });

  it('reads the page statically on auto, and says why it was not rendered', async () => {
    const thin = await extract(`${site.url}/thin`, { render: 'auto' });
    expect(thin.status).to.equal(200);
    expect(thin.json.data.content).to.include('Only a short line');
    expect(thin.json.data.render).to.deep.include({ mode: 'auto', rendered: false });
    expect(thin.json.data.render.reason).to.include('looks client-rendered').and.include('/nonexistent/chromium');

    const shell = await extract(`${site.url}/spa`, { render: 'auto' });
    expect(shell.status).to.equal(422);
    expect(shell.json.error.details.reason).to.match(/^no main content found: the page looks client-rendered .*\/nonexistent\/chromium/);

    const article = await extract(`${site.url}/article`, { render: 'auto' });
    expect(article.status).to.equal(200);
    expect(article.json.data.render).to.deep.include({ rendered: false, reason: 'no sign of a client-rendered app' });
  });
});

describe('POST /v1/extract with options.render and a browser over RENDER_BROWSER_MAX_MB', function () {
  this.timeout(60_000);
  let service: TestService;
  let site: PageServer;

  before(async () => {
    site = await startPageServer({ '/spa': html(SHELL), '/app.js': raw(APP_JS, { 'content-type': 'text/javascript' }) });
    // An idle Chromium alone holds more than this: every browser launched is restarted within 2 s.
    service = await startTestService({ RENDER_BROWSER_MAX_MB: '64' });
  });
  after(async () => {
    await service?.close();
    await site?.close();
  });

  it('restarts the browser and retries the page once, then fails it', async () => {
    const res = await call(service.url, '/v1/extract', { body: { url: `${site.url}/spa`, format: 'text', options: { render: 'always', wait_for: 8000, timeout: 20 } } });
    expect(res.status, JSON.stringify(res.json)).to.equal(422);
    expect(res.json.error.details.reason).to.equal('the browser went away twice while rendering the page (killed, crashed, or restarted past RENDER_BROWSER_MAX_MB)');
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).to.match(/^sev_render_browser_restarts_total\{cause="memory",role="all"\} [2-9]/m);
  });
});

describe('GET /v1/health with RENDER_DEFAULT always and no browser installed', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ CHROMIUM_PATH: '/nonexistent/chromium', RENDER_DEFAULT: 'always' });
  });
  after(() => service?.close());

  it('reports the renderer unhealthy: every plain extraction needs the browser it lacks', async () => {
    const health = (await call(service.url, '/v1/health')).json.data;
    expect(health.status).to.equal('unhealthy');
    expect(health.services.renderer).to.deep.include({ status: 'unhealthy', available: false });
    expect(health.services.renderer.error).to.include('RENDER_DEFAULT');
  });
});
