import { expect } from 'chai';
import { call, startTestService, type TestService } from './helpers/service.js';
import { html, raw, startPageServer, type PageServer } from './helpers/page-server.js';
import { freePort } from './helpers/free-port.js';
import { expectSchema } from './helpers/response-schema.js';

// A claim checked on the sources the request names, over real HTTP against pages served here on
// 127.0.0.1: one readable source is enough to judge it on, and every source that fails is
// named with its code and reason, in the answer or in INSUFFICIENT_SOURCES.

function page(title: string, text: string): string {
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body><article><h1>${title}</h1><p>${text}</p>
    <p>The trial was published in a peer-reviewed journal and followed its participants for two years.</p></article></body></html>`;
}

const CLAIM = 'Regular green tea consumption lowers LDL cholesterol in adults.';

describe('POST /v1/validate on few sources', function () {
  this.timeout(60_000);
  let service: TestService;
  let pages: PageServer;
  let closed: string;

  before(async () => {
    pages = await startPageServer({
      '/tea': html(page('Green tea trial', 'Regular green tea consumption lowered LDL cholesterol in adults, a randomised trial found.')),
      '/gone': html('not here', 404),
      '/picture': raw(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), { 'content-type': 'image/png' }),
    });
    // A port nothing listens on: the connection is refused.
    closed = `http://127.0.0.1:${await freePort()}/tea`;
    service = await startTestService();
  });
  after(async () => {
    await service?.close();
    await pages?.close();
  });

  const validate = (body: Record<string, unknown>) => call(service.url, '/v1/validate', { body });

  it('judges a claim on the one page it is given', async () => {
    const response = await validate({ claim: CLAIM, sources: [`${pages.url}/tea`], options: { confidence_threshold: 0.5 } });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    const { data } = response.json;
    expectSchema('validate.response', data);
    expect(data.validation_result).to.be.oneOf(['VERIFIED', 'LIKELY_TRUE']);
    expect(data.evidence.supporting.map((e: { source: string }) => e.source)).to.deep.equal([`${pages.url}/tea`]);
    expect(data.metadata).to.deep.include({ sources_checked: 1, sources_failed: [] });
  });

  it('answers INSUFFICIENT_SOURCES naming each source that could not be read, with its code and reason', async () => {
    const response = await validate({ claim: CLAIM, sources: [closed, `${pages.url}/gone`] });
    expect(response.status, JSON.stringify(response.json)).to.equal(422);
    expectSchema('error.envelope', response.json);
    const { error } = response.json;
    expect(error.code).to.equal('INSUFFICIENT_SOURCES');
    expect(error.details.sources_found).to.equal(0);
    expect(error.details.sources_required).to.equal(1);
    const failed = [...error.details.failed_sources].sort((a: { source: string }, b: { source: string }) => a.source.localeCompare(b.source));
    expect(failed).to.deep.equal([
      { source: closed, code: 'URL_UNREACHABLE', reason: 'connection refused' },
      { source: `${pages.url}/gone`, code: 'URL_UNREACHABLE', reason: 'HTTP 404', http_status: 404 },
    ].sort((a, b) => a.source.localeCompare(b.source)));
    // The message names them too, for people reading it.
    expect(error.message).to.include(closed).and.include('connection refused').and.include(`${pages.url}/gone (HTTP 404)`);
    expect(error.suggestion).to.include('failed_sources');
  });

  it('judges on the source that could be read and reports the others in the answer', async () => {
    const response = await validate({
      claim: CLAIM,
      sources: [`${pages.url}/gone`, `${pages.url}/tea`, `${pages.url}/picture`, 'nothing-indexed.example.org'],
      options: { confidence_threshold: 0.5 },
    });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    const { data } = response.json;
    expectSchema('validate.response', data);
    expect(data.validation_result).to.be.oneOf(['VERIFIED', 'LIKELY_TRUE']);
    expect(data.evidence.supporting.map((e: { source: string }) => e.source)).to.deep.equal([`${pages.url}/tea`]);
    expect(data.metadata.sources_checked).to.equal(4);
    const failed = Object.fromEntries(data.metadata.sources_failed.map((f: { source: string }) => [f.source, f]));
    expect(Object.keys(failed).sort()).to.deep.equal([`${pages.url}/gone`, `${pages.url}/picture`, 'nothing-indexed.example.org']);
    expect(failed[`${pages.url}/gone`]).to.deep.equal({ source: `${pages.url}/gone`, code: 'URL_UNREACHABLE', reason: 'HTTP 404', http_status: 404 });
    expect(failed[`${pages.url}/picture`]).to.include({ code: 'EXTRACTION_FAILED' }).and.not.have.property('http_status');
    expect(failed[`${pages.url}/picture`].reason).to.match(/image\/png/);
    expect(failed['nothing-indexed.example.org']).to.deep.equal({
      source: 'nothing-indexed.example.org', code: 'NO_RESULTS_FOUND', reason: 'nothing about the claim in the index for this domain',
    });
  });
});
