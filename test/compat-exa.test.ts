import { expect } from 'chai';
import { Exa, ExaError } from 'exa-js';
import { call } from './helpers/service.js';
import { auditEntries, startCompatSite, type CompatSite } from './helpers/compat-site.js';

/**
 * The Exa-compatible endpoints driven by Exa's own client, exa-js, given the service's
 * /compat/exa as its base URL: a local site whose articles the test loads into the index,
 * searched and read through it. docs/compat.md has the mapping.
 */
describe('compat: Exa client', function () {
  this.timeout(60_000);
  let s: CompatSite;
  let exa: Exa;
  const DAY_MS = 24 * 3600 * 1000;

  before(async () => {
    s = await startCompatSite();
    exa = new Exa(s.key, `${s.service.url}/compat/exa`);
    // Two dated reports for the date filters: one from two days ago, one from forty.
    const dated = await call(s.service.url, '/v1/index/documents', {
      body: {
        documents: [
          { url: s.url('/recent'), title: 'Recent harvest report', content: `The ${s.marker} harvest came in early this spring, with the first flush picked in two weeks.`, published_date: new Date(Date.now() - 2 * DAY_MS).toISOString() },
          { url: s.url('/older'), title: 'Older harvest report', content: `The ${s.marker} harvest of the previous season was late and small after a dry winter.`, published_date: new Date(Date.now() - 40 * DAY_MS).toISOString() },
        ],
      },
    });
    expect(dated.json.data.state, JSON.stringify(dated.json)).to.equal('completed');
  });
  after(async () => {
    await call(s.service.url, '/v1/index/documents', { method: 'DELETE', body: { urls: [s.url('/recent'), s.url('/older')] } });
    await s?.close();
  });

  it('searches with text and highlights: the loaded pages, their indexed text, the best passage', async () => {
    const answer = await exa.search(`green tea water ${s.marker}`, { numResults: 3, contents: { text: { maxCharacters: 2000 }, highlights: { maxCharacters: 300 } } });
    const tea = answer.results.find((r) => r.url === s.url('/tea'));
    expect(tea, JSON.stringify(answer).slice(0, 400)).to.not.equal(undefined);
    expect(tea!.id).to.equal(s.url('/tea'));
    expect(tea!.title).to.equal('Brewing green tea');
    expect(tea!.score).to.be.within(0, 1);
    expect(tea!.text).to.include('Boiling water scorches the leaves');
    expect(tea!.highlights[0]).to.include(s.marker);
    expect(tea!.highlightScores).to.have.length(1);
    expect(answer.requestId).to.match(/^req_/);
  });

  it('gives text by default as the client asks for it, and honours the domain filters', async () => {
    const answer = await exa.search(`coffee roast ${s.marker}`, { includeDomains: ['127.0.0.1'], numResults: 1 });
    expect(answer.results).to.have.length(1);
    expect(answer.results[0]!.url).to.equal(s.url('/coffee'));
    expect(answer.results[0]!.text).to.include('first crack');
    const excluded = await exa.search(`coffee roast ${s.marker}`, { excludeDomains: ['127.0.0.1'], contents: false });
    expect(excluded.results.map((r) => r.url)).not.to.include(s.url('/coffee'));
  });

  it('keeps results within the published dates, leaving out undated ones', async () => {
    const since = new Date(Date.now() - 10 * DAY_MS).toISOString();
    const recent = await exa.search(`${s.marker} harvest`, { startPublishedDate: since, contents: false });
    expect(recent.results.map((r) => r.url)).to.deep.equal([s.url('/recent')]);
    expect(recent.results[0]!.publishedDate).to.be.a('string');
    const before = await exa.search(`${s.marker} harvest`, { endPublishedDate: since, contents: false });
    expect(before.results.map((r) => r.url)).to.deep.equal([s.url('/older')]);
  });

  it('reads pages through the extraction pipeline, highlights for a query, links, and statuses for the ones that fail', async () => {
    const answer = await exa.getContents([s.url('/tea'), s.url('/missing')], {
      text: true, highlights: { query: 'boiling water bitter', highlightsPerUrl: 1 }, extras: { links: 5 },
    });
    expect(answer.results).to.have.length(1);
    const tea = answer.results[0]!;
    expect(tea.url).to.equal(s.url('/tea'));
    expect(tea.title).to.equal('Brewing green tea');
    expect(tea.text).to.include('second infusion');
    expect(tea.highlights).to.have.length(1);
    expect(tea.highlights[0]).to.include('Boiling water scorches');
    expect(tea.highlightScores?.[0]).to.equal(1);
    expect(answer.statuses).to.deep.equal([
      { id: s.url('/tea'), status: 'success' },
      { id: s.url('/missing'), status: 'error', error: { tag: 'CRAWL_NOT_FOUND', httpStatusCode: 404 } },
    ]);
    // ids are the URLs search results carry as ids.
    const byId = await call(`${s.service.url}/compat/exa`, '/contents', { key: null, headers: { 'x-api-key': s.key }, body: { ids: [s.url('/coffee')], text: { includeHtmlTags: true } } });
    expect(byId.status, JSON.stringify(byId.json)).to.equal(200);
    expect(byId.json.results[0].text).to.include('<p>').and.include('first crack');
  });

  it('surfaces errors as ExaError in Exa\'s format, refusing what it cannot honour', async () => {
    const refused = await new Exa(s.monitorKey, `${s.service.url}/compat/exa`).search('green tea').then(() => undefined, (e: unknown) => e);
    expect(refused).to.be.instanceOf(ExaError);
    expect((refused as ExaError).statusCode).to.equal(403);
    expect((refused as ExaError).message).to.match(/^INSUFFICIENT_PERMISSIONS: /);

    const summary = await exa.getContents([s.url('/tea')], { summary: true }).then(() => undefined, (e: unknown) => e);
    expect(summary).to.be.instanceOf(ExaError);
    expect((summary as ExaError).statusCode).to.equal(400);
    expect((summary as ExaError).message).to.include('summary is not supported');

    const raw = await call(`${s.service.url}/compat/exa`, '/search', { key: null, headers: { 'x-api-key': s.monitorKey }, body: { query: 'green tea' } });
    expect(raw.status).to.equal(403);
    expect(raw.headers.get('x-error-code')).to.equal('INSUFFICIENT_PERMISSIONS');
    expect(raw.json).to.have.all.keys('requestId', 'error', 'tag');
    expect(raw.json.tag).to.equal('ACCESS_DENIED');
    const invalid = await call(`${s.service.url}/compat/exa`, '/search', { key: s.key, body: { query: 'green tea', numResults: 'ten' } });
    expect(invalid.status).to.equal(400);
    expect(invalid.json.tag).to.equal('INVALID_REQUEST_BODY');
  });

  it('warns of what it ignores, and counts in audit and usage under the compat path', async () => {
    const warned = await call(`${s.service.url}/compat/exa`, '/search', { key: s.key, body: { query: `tea ${s.marker}`, category: 'news', numResults: 40 } });
    expect(warned.status).to.equal(200);
    expect(warned.headers.get('x-compat-warning')).to.include('category ignored').and.include('numResults 40 lowered to 20');
    const entries = await auditEntries(s.service, 'endpoint=/compat/exa/contents', 2);
    expect(entries.map((e) => e.status)).to.include(200);
    let usage: any;
    for (let i = 0; i < 50 && !usage?.endpoint_usage?.['/compat/exa/search']; i++) {
      usage = (await call(s.service.url, '/v1/usage')).json.data;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(usage.endpoint_usage['/compat/exa/search'].requests).to.be.at.least(5);
  });
});
