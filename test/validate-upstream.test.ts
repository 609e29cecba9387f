import { expect } from 'chai';
import { call, startTestService, type TestService } from './helpers/service.js';
import { freshDatabase } from './helpers/run-scope.js';
import { startJsonServer, type JsonRequest, type JsonReply, type JsonServer } from './helpers/json-server.js';
import { html, startPageServer, type PageHandler, type PageServer } from './helpers/page-server.js';

// A claim checked without sources against the index and a SearXNG stand-in whose results are
// pages served here on 127.0.0.1: the engine's pages are read live and judged like the index's.

function page(title: string, text: string): string {
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body><article><h1>${title}</h1><p>${text}</p>
    <p>The study was published in a peer-reviewed journal and followed its participants for several years.</p></article></body></html>`;
}

describe('POST /v1/validate with an upstream engine', function () {
  this.timeout(120_000);
  let service: TestService;
  let searxng: JsonServer;
  let pages: PageServer;
  const read: string[] = [];

  function searxngAnswer(request: JsonRequest): JsonReply {
    const q = (request.url.searchParams.get('q') ?? '').toLowerCase();
    const results = (list: unknown[]) => ({ query: q, number_of_results: list.length, results: list, answers: [], corrections: [], infoboxes: [], suggestions: [], unresponsive_engines: [] });
    const result = (path: string, title: string) => ({ url: `${pages.url}${path}`, title, content: title, engine: 'bing', engines: ['bing'], score: 1 });
    if (q.includes('walking')) {
      return { body: results([result('/walking', 'Walking and blood pressure'), result('/indexed', 'Walking study (indexed)'), result('/gone', 'A page that is gone')]) };
    }
    if (q.includes('cycling')) return { status: 500, body: { error: 'engine down' } };
    if (q.includes('glacier')) return { body: results([]), delayMs: 4000 };
    return { body: results([]) };
  }

  before(async () => {
    searxng = await startJsonServer(searxngAnswer);
    const seen = (handler: PageHandler): PageHandler => (req, res) => {
      read.push(req.url ?? '');
      handler(req, res);
    };
    pages = await startPageServer({
      '/walking': seen(html(page('Walking and blood pressure', 'Brisk daily walking lowered systolic blood pressure in adults with hypertension.'))),
      '/indexed': seen(html(page('Walking study', 'Brisk daily walking lowered blood pressure.'))),
      '/gone': seen(html('not here', 404)),
    });
    service = await startTestService({ DATABASE_URL: await freshDatabase('sev_validate_upstream_test'), SEARXNG_URL: searxng.url, SEARXNG_TIMEOUT_MS: '5000' });
    const indexed = await call(service.url, '/v1/index/documents', { body: { documents: [
      { url: `${pages.url}/indexed`, title: 'Walking study', language: 'en', content: 'In a cohort of 2,000 adults, brisk daily walking lowered systolic blood pressure in adults with hypertension.' },
      { url: 'https://cycling.example.org/knees', title: 'Cycling and knees', language: 'en', content: 'Regular cycling reduced knee pain in adults with osteoarthritis in a two-year trial.' },
    ] } });
    expect(indexed.status).to.equal(200);
  });
  after(async () => {
    await service?.close();
    await Promise.all([searxng?.close(), pages?.close()]);
  });

  const validate = (body: Record<string, unknown>) => call(service.url, '/v1/validate', { body });

  it('asks the engine for the claim, reads its pages live, and reports the one that cannot be read', async () => {
    const claim = 'Brisk daily walking lowers systolic blood pressure in adults with hypertension.';
    const response = await validate({ claim });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    const { data } = response.json;
    expect(searxng.requests.at(-1)!.url.searchParams.get('q')).to.equal(claim);
    expect(data.metadata.upstream_engine).to.equal('answered');
    const supporting = data.evidence.supporting.map((e: { source: string }) => e.source);
    expect(supporting).to.include.members([`${pages.url}/walking`, `${pages.url}/indexed`]);
    expect(data.metadata.sources_failed).to.deep.equal([{ source: `${pages.url}/gone`, code: 'URL_UNREACHABLE', reason: 'HTTP 404', http_status: 404 }]);
    const items = Object.values(data.evidence as Record<string, unknown[]>).reduce((n, list) => n + list.length, 0);
    expect(data.metadata.sources_checked).to.equal(items + 1);
    // The engine's result the index already holds is judged from the index, not fetched again.
    expect(read).to.include('/walking').and.not.include('/indexed');
    expect(data.validation_result).to.be.oneOf(['VERIFIED', 'LIKELY_TRUE']);
  });

  it('goes on with the index when the engine fails, and says so', async () => {
    const response = await validate({ claim: 'Regular cycling reduces knee pain in adults with osteoarthritis.' });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    const { data } = response.json;
    expect(data.metadata.upstream_engine).to.equal('error');
    expect(data.evidence.supporting.map((e: { source: string }) => e.source)).to.deep.equal(['https://cycling.example.org/knees']);
  });

  it('answers VALIDATION_TIMEOUT when the engine is still searching at the time limit and the index has nothing', async () => {
    const started = Date.now();
    const response = await validate({ claim: 'Glacier ice in the Alps melts faster every decade.', options: { timeout: 2, max_sources: 4 } });
    expect(response.status, JSON.stringify(response.json)).to.equal(422);
    expect(response.json.error.code).to.equal('VALIDATION_TIMEOUT');
    expect(response.json.error.details).to.deep.equal({ sources_checked: 0, sources_pending: 4 });
    expect(Date.now() - started).to.be.below(3500);
  });

  it('does not ask the engine when the request names its sources', async () => {
    const before = searxng.requests.length;
    const response = await validate({ claim: 'Brisk daily walking lowers blood pressure.', sources: [`${pages.url}/walking`] });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    expect(searxng.requests.length).to.equal(before);
    expect(response.json.data.metadata).to.not.have.property('upstream_engine');
  });
});
