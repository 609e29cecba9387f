import { expect } from 'chai';
import { call, startTestService, type TestService } from './helpers/service.js';
import { freshDatabase } from './helpers/run-scope.js';
import { html, startPageServer, type PageServer } from './helpers/page-server.js';
import { setTimeout as delay } from 'node:timers/promises';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStorage } from '../src/storage/connection.js';
import { findRequestLogByRequestId } from '../src/monitor/request-log.repository.js';

// Evidence pages are served here on 127.0.0.1; the index holds a small hand-written corpus.

/** A page that says when it was published. */
function dated(published: string, title: string, ...paragraphs: string[]): string {
  return page(title, ...paragraphs).replace('<head>', `<head><meta property="article:published_time" content="${published}T08:00:00Z">`);
}

function page(title: string, ...paragraphs: string[]): string {
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body><article><h1>${title}</h1>
    ${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}</article></body></html>`;
}

const CORPUS = [
  { url: 'https://trials.example.org/aspirin-stroke', title: 'Aspirin and stroke in older adults', language: 'en',
    content: 'In a trial of 19,000 older adults, daily low-dose aspirin reduced the risk of ischaemic stroke by 20 percent. Bleeding events were more frequent in the aspirin group.' },
  { url: 'https://nutrition.example.com/coffee', title: 'Coffee and sleep', language: 'en',
    content: 'Caffeine taken in the evening delays sleep onset and shortens deep sleep. Most adults metabolise half of a dose of caffeine within five hours.' },
  { url: 'https://www.nasa.gov/lunar-ice', title: 'Water ice on the Moon', language: 'en',
    content: 'NASA confirmed water ice in permanently shadowed craters at the lunar south pole, using infrared spectra.' },
  { url: 'https://spacefans.example.com/moon', title: 'Moon news', language: 'en',
    content: 'Water ice at the lunar south pole was confirmed by NASA, fans of the mission report.' },
  { url: 'https://rumours.example.net/mars', title: 'Mars rumours', language: 'en',
    content: 'Liquid water flows on the surface of Mars every summer, bloggers say.' },
  // One finding, from a journal of record and from a blog.
  { url: 'https://www.nejm.org/statins', title: 'Statins and heart attacks', language: 'en',
    content: 'In a randomised trial, statin therapy lowered the rate of heart attacks in adults with high cholesterol.' },
  { url: 'https://healthtips.example.com/statins', title: 'Do statins work?', language: 'en',
    content: 'Statin therapy lowered the rate of heart attacks in adults with high cholesterol, a blogger writes after reading the trial.' },
  // The same record, as it stood in 2008 and as it stands now.
  { url: 'https://athletics-2008.example.org/record', title: 'Sprint records', language: 'en', published_date: '2008-08-17T00:00:00Z',
    content: 'The world record for the men\'s 100 metres sprint is 9.69 seconds, set in Beijing.' },
  { url: 'https://athletics-now.example.org/record', title: 'Sprint records today', language: 'en', published_date: new Date(Date.now() - 30 * 86_400_000).toISOString(),
    content: 'The world record for the men\'s 100 metres sprint is 9.58 seconds, set in Berlin.' },
];

describe('POST /v1/validate', function () {
  this.timeout(120_000);
  let service: TestService;
  let pages: PageServer;
  const subjects = path.join(os.tmpdir(), `sev-validate-subjects-${process.pid}.json`);

  before(async () => {
    pages = await startPageServer({
      '/supports': html(page('Vitamin D trial', 'Vitamin D supplementation increased bone density in postmenopausal women over two years.', 'The trial enrolled 400 women in three countries.')),
      '/contradicts': html(page('Vitamin D review', 'Vitamin D supplementation did not increase bone density in postmenopausal women.', 'The review pooled twelve trials.')),
      '/suggests': html(page('Vitamin D pilot', 'Vitamin D supplementation may increase bone density in postmenopausal women over two years.', 'The pilot enrolled 40 women.')),
      // One report, first published by a journal, republished later by an aggregator.
      '/report-original': html(dated('2020-03-01', 'Zinc and colds', 'Zinc lozenges shortened the common cold by two days in a trial of 200 adults.')),
      '/report-republished': html(dated('2024-06-01', 'Zinc and colds', 'Zinc lozenges shortened the common cold by two days in a trial of 200 adults.')),
      '/unrelated': html(page('Gardening', 'Tomatoes need full sun and regular watering.', 'Prune the side shoots weekly.')),
      '/broken': html('server error', 500),
      // The supporting page's text again, as another site would republish it.
      '/copy': html(page('Vitamin D trial', 'Vitamin D supplementation increased bone density in postmenopausal women over two years.', 'The trial enrolled 400 women in three countries.')),
      '/tower': html(page('The Eiffel Tower', 'The Eiffel Tower was completed in 1889 and is 330 metres tall.', 'It was the tallest structure in the world for 41 years.')),
      '/jobs-figure': html(page('Labour market', 'Unemployment in Freedonia fell to 4.1 percent in 2024, the statistics office reported.', 'Wages rose in most regions.')),
      '/jobs-trend': html(page('Labour market', 'Unemployment in Freedonia fell in 2024, the statistics office reported.', 'Wages rose in most regions.')),
      '/moon-landing': html(page('Apollo 11', 'Apollo 11 landed on the Moon on July 20, 1969, with Neil Armstrong and Buzz Aldrin aboard.', 'The mission returned to Earth four days later.')),
      // Answers after the validation's time limit.
      '/slow': (req, res) => {
        const timer = setTimeout(() => html(page('Late', 'Vitamin D supplementation increased bone density.'))(req, res), 8000);
        res.on('close', () => clearTimeout(timer));
      },
    });
    // An operator's own subject, beside the built-in ones.
    fs.writeFileSync(subjects, JSON.stringify({ cardiology: { domains: ['healthtips.example.com'], aliases: ['Heart'], authority: 0.7 } }));
    service = await startTestService({ DATABASE_URL: await freshDatabase('sev_validate_test'), VALIDATE_SUBJECTS_FILE: subjects });
    const indexed = await call(service.url, '/v1/index/documents', { body: { documents: CORPUS } });
    expect(indexed.status).to.equal(200);
  });
  after(async () => {
    await service?.close();
    await pages?.close();
    fs.rmSync(subjects, { force: true });
  });

  const validate = (body: Record<string, unknown>) => call(service.url, '/v1/validate', { body });
  const claim = 'Vitamin D supplementation increases bone density in postmenopausal women.';

  it('finds its own evidence in the index and names the decisive source', async () => {
    const response = await validate({ claim: 'Daily aspirin reduces the risk of stroke in older adults.', options: { confidence_threshold: 0.5 } });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    const { data } = response.json;
    expect(data.validation_result).to.be.oneOf(['VERIFIED', 'LIKELY_TRUE']);
    expect(data.fact_check_summary.verdict).to.be.oneOf(['TRUE', 'MOSTLY_TRUE']);
    expect(data.evidence.supporting[0].source).to.equal('https://trials.example.org/aspirin-stroke');
    expect(data.evidence.supporting[0].snippet).to.match(/reduced the risk of ischaemic stroke/);
    expect(data.fact_check_summary.explanation).to.include('https://trials.example.org/aspirin-stroke');
    expect(data.confidence_score).to.be.within(0.5, 1);
  });

  it('reports a claim one page supports and another contradicts as disputed', async () => {
    const response = await validate({ claim, sources: [`${pages.url}/supports`, `${pages.url}/contradicts`] });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    const { data } = response.json;
    expect(data.evidence.supporting.map((e: { source: string }) => e.source)).to.deep.equal([`${pages.url}/supports`]);
    expect(data.evidence.contradicting.map((e: { source: string }) => e.source)).to.deep.equal([`${pages.url}/contradicts`]);
    expect(data.evidence.contradicting[0].snippet).to.match(/did not increase bone density/);
    expect(data.validation_result).to.equal('DISPUTED');
    expect(data.consensus_level).to.equal('CONFLICTING');
    expect(data.fact_check_summary.verdict).to.equal('MIXED');
  });

  it('counts copies of one text on several sites once', async () => {
    const response = await validate({ claim, sources: [`${pages.url}/supports`, `${pages.url}/copy`, `${pages.url}/contradicts`] });
    expect(response.status).to.equal(200);
    const { data } = response.json;
    expect(data.metadata.sources_merged).to.deep.equal([{ source: `${pages.url}/copy`, copy_of: `${pages.url}/supports` }]);
    expect(data.evidence.supporting.map((e: { source: string }) => e.source)).to.deep.equal([`${pages.url}/supports`]);
    // One for, one against: without merging it would read two to one.
    expect(data.fact_check_summary.explanation).to.include('1 supporting, 1 contradicting and 0 neutral sources');
  });

  it('counts a page that only suggests the finding as weaker support than one that states it', async () => {
    const stated = await validate({ claim, sources: [`${pages.url}/supports`], options: { confidence_threshold: 0 } });
    const hedged = await validate({ claim, sources: [`${pages.url}/suggests`], options: { confidence_threshold: 0 } });
    expect(hedged.status, JSON.stringify(hedged.json)).to.equal(200);
    const [statedItem] = stated.json.data.evidence.supporting;
    const [hedgedItem] = hedged.json.data.evidence.supporting;
    expect(hedgedItem.snippet).to.match(/may increase bone density/);
    expect(hedgedItem.confidence).to.be.below(statedItem.confidence * 0.9);
    expect(hedged.json.data.confidence_score).to.equal(hedgedItem.confidence);
    expect(hedged.json.data.validation_result).to.equal('LIKELY_TRUE');
  });

  it('takes the copy published first for the original, wherever it is listed', async () => {
    const response = await validate({ claim: 'Zinc lozenges shorten the common cold.', sources: [`${pages.url}/report-republished`, `${pages.url}/report-original`] });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    const { data } = response.json;
    expect(data.metadata.sources_merged).to.deep.equal([{ source: `${pages.url}/report-republished`, copy_of: `${pages.url}/report-original` }]);
    const items = Object.values(data.evidence).flat() as { source: string; published_date: string }[];
    expect(items.map((i) => i.source)).to.deep.equal([`${pages.url}/report-original`]);
    expect(items[0]!.published_date).to.equal('2020-03-01T08:00:00.000Z');
  });

  it('judges a negated claim against the page that supports the original', async () => {
    const response = await validate({ claim: 'Vitamin D supplementation does not increase bone density in postmenopausal women.', sources: [`${pages.url}/supports`], options: { confidence_threshold: 0.5 } });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    expect(response.json.data.evidence.contradicting).to.have.length(1);
    expect(response.json.data.validation_result).to.be.oneOf(['FALSE', 'LIKELY_FALSE']);
  });

  it('reports unreachable sources and still judges on the others', async () => {
    const response = await validate({ claim, sources: [`${pages.url}/supports`, `${pages.url}/broken`, 'http://127.0.0.1:9/nothing'], options: { confidence_threshold: 0.5 } });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    const { data } = response.json;
    expect(data.metadata.sources_failed.map((f: { source: string }) => f.source).sort()).to.deep.equal([`${pages.url}/broken`, 'http://127.0.0.1:9/nothing']);
    expect(data.metadata.sources_checked).to.equal(3);
    expect(data.evidence.supporting).to.have.length(1);
  });

  it('answers INSUFFICIENT_SOURCES when no source can be read', async () => {
    const response = await validate({ claim, sources: [`${pages.url}/broken`] });
    expect(response.status).to.equal(422);
    expect(response.json.error.code).to.equal('INSUFFICIENT_SOURCES');
    expect(response.json.error.details).to.deep.equal({
      sources_found: 0, sources_required: 1,
      failed_sources: [{ source: `${pages.url}/broken`, code: 'URL_UNREACHABLE', reason: 'HTTP 500', http_status: 500 }],
    });
  });

  it('lists a page that does not speak to the claim as neutral and gives no verdict on it', async () => {
    const response = await validate({ claim, sources: [`${pages.url}/unrelated`] });
    expect(response.status).to.equal(200);
    expect(response.json.data.evidence.neutral).to.have.length(1);
    expect(response.json.data.validation_result).to.equal('UNVERIFIED');
    expect(response.json.data.consensus_level).to.equal('NONE');
  });

  it('gives an opinion a documented answer instead of a verdict', async () => {
    const response = await validate({ claim, sources: [`${pages.url}/supports`], context: { claim_type: 'opinion' } });
    expect(response.status).to.equal(200);
    expect(response.json.data).to.include({ validation_result: 'OPINION', confidence_score: 0 });
    expect(response.json.data.fact_check_summary.verdict).to.equal('UNPROVEN');
  });

  it('finds that a number or a date the page states otherwise does not hold', async () => {
    const tower = [`${pages.url}/tower`];
    // Default options: a contradiction's calibrated confidence rarely reaches 0.5 (docs/validation.md).
    const ask = async (claim: string) => (await validate({ claim, sources: tower })).json.data.validation_result;
    expect(await ask('The Eiffel Tower is 330 metres tall.')).to.be.oneOf(['VERIFIED', 'LIKELY_TRUE']);
    expect(await ask('The Eiffel Tower is 120 metres tall.')).to.be.oneOf(['FALSE', 'LIKELY_FALSE']);
    expect(await ask('The Eiffel Tower was completed in 1889.')).to.be.oneOf(['VERIFIED', 'LIKELY_TRUE']);
    expect(await ask('The Eiffel Tower was completed in 1925.')).to.be.oneOf(['FALSE', 'LIKELY_FALSE']);
    // Full dates: another day of the same month disagrees; the year alone agrees.
    const landing = async (claim: string) => (await validate({ claim, sources: [`${pages.url}/moon-landing`] })).json.data.validation_result;
    expect(await landing('Apollo 11 landed on the Moon on 20 July 1969.')).to.be.oneOf(['VERIFIED', 'LIKELY_TRUE']);
    expect(await landing('Apollo 11 landed on the Moon on 21 July 1969.')).to.be.oneOf(['FALSE', 'LIKELY_FALSE']);
    expect(await landing('Apollo 11 landed on the Moon in 1969.')).to.be.oneOf(['VERIFIED', 'LIKELY_TRUE']);
  });

  it('supports a statistical claim only with its figures', async () => {
    const jobs = 'Unemployment in Freedonia fell to 4.1 percent in 2024.';
    const ask = async (source: string, claimType: string) => (await validate({
      claim: jobs, sources: [`${pages.url}/${source}`], context: { claim_type: claimType }, options: { confidence_threshold: 0.5 },
    })).json.data;
    // As a factual claim, a page saying unemployment fell in 2024 is taken as support …
    expect((await ask('jobs-trend', 'factual')).validation_result).to.be.oneOf(['VERIFIED', 'LIKELY_TRUE']);
    // … as a statistical one it is not: it never states 4.1 percent.
    const trend = await ask('jobs-trend', 'statistical');
    expect(trend.validation_result).to.equal('UNVERIFIED');
    expect(trend.evidence.supporting).to.have.length(0);
    expect((await ask('jobs-figure', 'statistical')).validation_result).to.be.oneOf(['VERIFIED', 'LIKELY_TRUE']);
  });

  it('gives no verdict below options.confidence_threshold', async () => {
    // A page that only suggests the finding: support, but not certain support.
    const sources = [`${pages.url}/suggests`];
    const loose = (await validate({ claim, sources, options: { confidence_threshold: 0.5 } })).json.data;
    expect(loose.validation_result).to.equal('LIKELY_TRUE');
    expect(loose.confidence_score).to.be.below(0.9);
    const strict = (await validate({ claim, sources, options: { confidence_threshold: 0.9 } })).json.data;
    expect(strict.validation_result).to.equal('UNVERIFIED');
    expect(strict.fact_check_summary.verdict).to.equal('UNPROVEN');
    // The evidence is the same; only the verdict waits for more certainty.
    expect(strict.evidence).to.deep.equal(loose.evidence);
  });

  it('checks at most options.max_sources sources', async () => {
    const response = await validate({ claim, sources: [`${pages.url}/supports`, `${pages.url}/contradicts`, `${pages.url}/unrelated`], options: { max_sources: 1 } });
    expect(response.status).to.equal(200);
    expect(response.json.data.metadata.sources_checked).to.equal(1);
    const items = Object.values(response.json.data.evidence).flat() as { source: string }[];
    expect(items.map((i) => i.source)).to.deep.equal([`${pages.url}/supports`]);
  });

  it('answers VALIDATION_TIMEOUT with how far it got when a source is too slow, and audits it', async () => {
    const started = Date.now();
    const response = await validate({ claim, sources: [`${pages.url}/supports`, `${pages.url}/slow`], options: { timeout: 2 } });
    expect(Date.now() - started).to.be.below(4000);
    expect(response.status).to.equal(422);
    expect(response.json.error.code).to.equal('VALIDATION_TIMEOUT');
    expect(response.json.error.details).to.deep.equal({ sources_checked: 1, sources_pending: 1 });
    // The audit row keeps how far the validation got (rows are written in batches, within a second).
    const storage = openStorage(service.config.databaseUrl, 1);
    try {
      let row;
      for (let tries = 0; !row && tries < 40; tries++) {
        row = await findRequestLogByRequestId(storage.db, response.json.request_id);
        if (!row) await delay(100);
      }
      expect(row?.errorCode).to.equal('VALIDATION_TIMEOUT');
      expect(row?.extra).to.include({ sources_checked: 1, sources_pending: 1 });
    } finally {
      await storage.close();
    }
  });

  it('lets only primary sources decide when they are required, and says when there is none', async () => {
    const lunar = await validate({ claim: 'NASA confirmed water ice at the lunar south pole.', options: { require_primary_sources: true, confidence_threshold: 0.5 } });
    expect(lunar.status).to.equal(200);
    const items = Object.values(lunar.json.data.evidence).flat() as { source: string; primary: boolean }[];
    expect(items.find((i) => i.source === 'https://www.nasa.gov/lunar-ice')?.primary).to.equal(true);
    expect(items.find((i) => i.source === 'https://spacefans.example.com/moon')?.primary).to.equal(false);
    expect(lunar.json.data.validation_result).to.be.oneOf(['VERIFIED', 'LIKELY_TRUE']);

    const mars = { claim: 'Liquid water flows on the surface of Mars every summer.', sources: ['rumours.example.net'] };
    const open = (await validate({ ...mars, options: { confidence_threshold: 0.5 } })).json.data;
    expect(open.validation_result).to.be.oneOf(['VERIFIED', 'LIKELY_TRUE']);
    const strict = (await validate({ ...mars, options: { confidence_threshold: 0.5, require_primary_sources: true } })).json.data;
    expect(strict.validation_result).to.equal('UNVERIFIED');
    expect(strict.fact_check_summary.explanation).to.match(/Primary sources were required and none was found/);
  });

  it('lets recent evidence decide a time-sensitive claim and marks the outdated', async () => {
    const body = { claim: "The world record for the men's 100 metres sprint is 9.69 seconds.", sources: ['athletics-2008.example.org', 'athletics-now.example.org'] };
    const timeless = (await validate({ ...body, options: { confidence_threshold: 0.5 } })).json.data;
    expect(timeless.validation_result).to.equal('DISPUTED');
    const timely = (await validate({ ...body, context: { time_sensitive: true }, options: { confidence_threshold: 0.5 } })).json.data;
    expect(timely.validation_result).to.be.oneOf(['FALSE', 'LIKELY_FALSE']);
    const items = Object.values(timely.evidence).flat() as { source: string; outdated: boolean; published_date: string }[];
    const old = items.find((i) => i.source === 'https://athletics-2008.example.org/record')!;
    expect(old).to.include({ outdated: true, published_date: '2008-08-17T00:00:00.000Z' });
    expect(items.find((i) => i.source === 'https://athletics-now.example.org/record')!.outdated).to.equal(false);
  });

  it('trusts the publishers of the claim\'s subject (context.domain) more', async () => {
    const claimText = 'Statin therapy lowers the rate of heart attacks in adults with high cholesterol.';
    const authority = async (context?: Record<string, unknown>) => {
      const data = (await validate({ claim: claimText, ...(context ? { context } : {}) })).json.data;
      const items = Object.values(data.evidence).flat() as { source: string; authority_score: number; primary: boolean }[];
      return { journal: items.find((i) => i.source === 'https://www.nejm.org/statins')!, blog: items.find((i) => i.source === 'https://healthtips.example.com/statins')! };
    };
    const plain = await authority();
    expect(plain.journal).to.include({ authority_score: 0.5, primary: false });
    const medical = await authority({ domain: 'Medicine' });
    expect(medical.journal).to.include({ authority_score: 0.9, primary: true });
    expect(medical.blog).to.include({ authority_score: 0.5, primary: false });
    // An alias names the same subject.
    expect((await authority({ domain: 'health' })).journal.authority_score).to.equal(0.9);
    // The operator's subject (VALIDATE_SUBJECTS_FILE), by an alias: its publisher at its authority, below primary.
    const heart = await authority({ domain: 'heart' });
    expect(heart.blog).to.include({ authority_score: 0.7, primary: false });
    expect(heart.journal).to.include({ authority_score: 0.5, primary: false });
  });

  it('answers VALIDATION_TIMEOUT shortly after the deadline when no worker takes the job', async () => {
    // An API process alone, on a queue of its own: nothing will ever answer the job.
    const api = await startTestService({}, 'api');
    try {
      const started = Date.now();
      const response = await call(api.url, '/v1/validate', { body: { claim, options: { timeout: 1, max_sources: 4 } } });
      expect(Date.now() - started).to.be.within(1000, 6000);
      expect(response.status).to.equal(422);
      expect(response.json.error.code).to.equal('VALIDATION_TIMEOUT');
      expect(response.json.error.details).to.deep.equal({ sources_checked: 0, sources_pending: 4 });
    } finally {
      await api.close();
    }
  });

  it('refuses a claim with nothing checkable in it', async () => {
    for (const vague of ['It is true.', 'This is it!']) {
      const response = await validate({ claim: vague });
      expect(response.status, vague).to.equal(422);
      expect(response.json.error.code).to.equal('CLAIM_TOO_VAGUE');
    }
  });
});
