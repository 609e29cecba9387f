import { expect } from 'chai';
import { call, startTestService, type TestService } from './helpers/service.js';
import { html, startPageServer, type PageServer } from './helpers/page-server.js';
import { startJsonServer, type JsonRequest, type JsonReply, type JsonServer } from './helpers/json-server.js';
import { freePort } from './helpers/free-port.js';
import { createKey } from './helpers/accounts.js';
import { expectSchema } from './helpers/response-schema.js';
import { countAsDocumented } from './helpers/token-count.js';

// Every page is served here on 127.0.0.1, and so is the chat-completions stand-in.

const VOLCANO = `<!doctype html><html lang="en"><head><title>The eruption of Mount Etna</title></head><body><article>
  <h1>The eruption of Mount Etna</h1>
  <p>Mount Etna erupted on Sunday night, sending a column of volcanic ash six kilometres into the sky above Sicily.</p>
  <p>The ash cloud closed Catania airport for two days, and hundreds of flights to the island were cancelled.</p>
  <p>Lava flowed down the eastern slope of the volcano into the uninhabited Valle del Bove.</p>
  <p>Scientists at the national volcano observatory said the eruption was the strongest since 2021.</p>
  <p>Local restaurants reported that tourists kept arriving to watch the glowing lava from the villages below the volcano.</p>
</article></body></html>`;

const GLACIER = `<!doctype html><html lang="en"><head><title>Alpine glaciers in retreat</title></head><body><article>
  <h1>Alpine glaciers in retreat</h1>
  <p>Alpine glaciers lost a tenth of their remaining ice volume over the past two summers, according to glaciologists in Zurich.</p>
  <p>The retreat of the glaciers exposes loose rock, and volcanic regions are not the only ones where ash and debris threaten valleys.</p>
  <p>Glaciologists expect most small glaciers of the Alps to disappear before the end of the century.</p>
</article></body></html>`;

const TEXT = [
  'Honeybees communicate the location of flowers to their hive mates with a waggle dance performed on the comb.',
  'The angle of the dance relative to gravity tells the other bees the direction of the food source relative to the sun.',
  'The duration of the waggle run encodes the distance to the flowers, with longer runs meaning more distant food.',
  'Beekeepers in the region reported that the spring harvest of honey was larger than in any year since records began.',
  'Researchers filmed thousands of dances to measure how precisely bees encode the distance to food in the waggle run.',
].join('\n\n');

function llmAnswer(request: JsonRequest): JsonReply {
  const user = String(request.body?.messages?.[1]?.content ?? '');
  const content = user.startsWith('Focus: airport')
    // The second sentence cites a source that was not given: it is dropped, the first is kept.
    ? 'The ash cloud of Mount Etna closed Catania airport for two days [1]. Airports in Iceland closed too [7].'
    : 'NO ANSWER';
  return { body: { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'fake', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] } };
}

describe('POST /v1/summarize', function () {
  this.timeout(60_000);
  let service: TestService;
  let pages: PageServer;
  let llm: JsonServer;
  let closed: string;

  before(async () => {
    pages = await startPageServer({ '/volcano': html(VOLCANO), '/glacier': html(GLACIER), '/missing': html('gone', 404) });
    llm = await startJsonServer(llmAnswer);
    closed = `http://127.0.0.1:${await freePort()}/nothing-listens-here`;
    service = await startTestService({ LLM_BASE_URL: `${llm.url}/v1`, LLM_MODEL: 'fake' });
  });
  after(async () => {
    await service?.close();
    await Promise.all([pages?.close(), llm?.close()]);
  });

  const summarize = (body: Record<string, unknown>, key?: string) => call(service.url, '/v1/summarize', { body, ...(key ? { key } : {}) });
  const citedIn = (summary: string) => [...summary.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));

  it('summarises pages together, lists the one it could not read, and cites only the sources it returns', async () => {
    const response = await summarize({ urls: [`${pages.url}/volcano`, closed, `${pages.url}/glacier`], format: 'text' });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    const { data } = response.json;
    expectSchema('summarize.response', data);
    expect(data.sources.map((s: { url: string }) => s.url)).to.deep.equal([`${pages.url}/volcano`, `${pages.url}/glacier`]);
    expect(data.sources[0].title).to.equal('The eruption of Mount Etna');
    expect(data.metadata.sources_failed).to.have.length(1);
    expect(data.metadata.sources_failed[0]).to.include({ source: closed, code: 'URL_UNREACHABLE' });
    expect(data.metadata.sources_read).to.equal(2);
    expect(data.metadata.summary_method).to.equal('extractive');
    expect(data.metadata.word_count.sources).to.be.greaterThan(100);
    expect(data.metadata.word_count.summary).to.be.within(10, data.metadata.word_count.sources);
    expect(data.metadata.processing_time).to.be.greaterThan(0);
    const cited = citedIn(data.summary);
    expect(cited.length).to.be.within(1, 5);
    for (const n of cited) expect(n).to.be.within(1, data.sources.length);
    // Each source lists the summary's sentences that cite it.
    const listed = data.sources.flatMap((s: { sentences: string[] }) => s.sentences);
    for (const sentence of listed) expect(data.summary).to.include(sentence.replace(/[.!?]$/, ''));
  });

  it('summarises a text in every format, citing it as [1] without a link', async () => {
    const text = await summarize({ text: TEXT, title: 'Bee dances', format: 'text', max_sentences: 2 });
    expect(text.status, JSON.stringify(text.json)).to.equal(200);
    expect(text.json.data.sources).to.deep.equal([{ title: 'Bee dances', sentences: text.json.data.sources[0].sentences }]);
    expect(citedIn(text.json.data.summary)).to.deep.equal([1, 1]);
    expect(text.json.data.summary).to.match(/waggle|dance/);
    const markdown = await summarize({ text: TEXT, format: 'markdown', max_sentences: 2 });
    expect(markdown.json.data.summary).to.include('[1]').and.not.include('](');
    const htmlSummary = await summarize({ text: TEXT, format: 'html', max_sentences: 2 });
    expect(htmlSummary.json.data.summary).to.match(/^<p>.*<sup>\[1\]<\/sup>.*<\/p>$/s);
    const json = await summarize({ text: TEXT, format: 'json', max_sentences: 2 });
    expectSchema('summarize.response', json.json.data);
    expect(json.json.data.summary.sentences).to.have.length(2);
    for (const sentence of json.json.data.summary.sentences) expect(sentence.citations).to.deep.equal([1]);
    const bare = await summarize({ text: TEXT, format: 'text', include_sources: false });
    expect(bare.json.data).not.to.have.property('sources');
    expect(citedIn(bare.json.data.summary)).to.deep.equal([]);
  });

  it('focuses on the query, and says when nothing spoke to it', async () => {
    const focused = await summarize({ urls: [`${pages.url}/volcano`, `${pages.url}/glacier`], query: 'glaciers ice retreat', format: 'json' });
    expect(focused.status, JSON.stringify(focused.json)).to.equal(200);
    expect(focused.json.data.metadata.query_matched).to.equal(true);
    const sentences = focused.json.data.summary.sentences as { text: string; citations: number[] }[];
    expect(sentences.length).to.be.greaterThan(0);
    for (const sentence of sentences) {
      expect(sentence.text).to.match(/glacier/i);
      expect(sentence.citations).to.deep.equal([2]);
    }
    const unrelated = await summarize({ text: TEXT, query: 'quantum chromodynamics lattice gauge', format: 'text' });
    expect(unrelated.status).to.equal(200);
    expect(unrelated.json.data.metadata.query_matched).to.equal(false);
    expect(unrelated.json.data.summary).to.match(/bees|dance/i);
  });

  it('keeps to max_sentences and max_words', async () => {
    const two = await summarize({ text: TEXT, max_sentences: 2, format: 'json' });
    expect(two.json.data.summary.sentences).to.have.length(2);
    const words = await summarize({ text: TEXT, max_words: 30, format: 'json' });
    expect(words.status, JSON.stringify(words.json)).to.equal(200);
    expect(words.json.data.metadata.word_count.summary).to.be.within(1, 30);
    const counted = words.json.data.summary.sentences.map((s: { text: string }) => s.text.split(/\s+/).length).reduce((a: number, b: number) => a + b, 0);
    expect(counted).to.be.at.most(30);
    const tooFew = await summarize({ text: TEXT, max_words: 10 });
    expect(tooFew.status).to.equal(422);
    expect(tooFew.json.error.code).to.equal('EXTRACTION_FAILED');
    expect(tooFew.json.error.details.reason).to.include('max_words');
  });

  it('fits max_tokens, counted as documented, and says what it cut', async () => {
    const body = { urls: [`${pages.url}/volcano`, `${pages.url}/glacier`], max_sentences: 6, format: 'markdown' };
    const whole = await summarize({ ...body, max_tokens: 100_000 });
    expect(whole.json.data.truncated).to.equal(false);
    expect(whole.json.data.budget.omitted_tokens).to.equal(0);
    const wholeTokens = answerTokens(whole.json.data);
    expect(whole.json.data.budget.tokens).to.equal(wholeTokens);

    const budget = Math.floor(wholeTokens / 2);
    const cut = await summarize({ ...body, max_tokens: budget });
    expect(cut.status, JSON.stringify(cut.json)).to.equal(200);
    expectSchema('summarize.response', cut.json.data);
    expect(cut.json.data.truncated).to.equal(true);
    const tokens = answerTokens(cut.json.data);
    expect(tokens).to.be.at.most(budget).and.greaterThan(0);
    expect(cut.json.data.budget).to.deep.equal({ max_tokens: budget, tokens, omitted_tokens: wholeTokens - tokens });
    for (const n of citedIn(cut.json.data.summary)) expect(n).to.be.within(1, cut.json.data.sources.length);
  });

  it('refuses a text with nothing to summarise, and pages none of which can be read, saying why', async () => {
    const nothing = await summarize({ text: 'OK. Yes! No?' });
    expect(nothing.status).to.equal(422);
    expect(nothing.json.error.code).to.equal('EXTRACTION_FAILED');
    expect(nothing.json.error.details.reason).to.match(/no sentence to summarise/);
    const unreadable = await summarize({ urls: [closed, `${pages.url}/missing`] });
    expect(unreadable.status).to.equal(422);
    expect(unreadable.json.error.code).to.equal('INSUFFICIENT_SOURCES');
    expect(unreadable.json.error.details.failed_sources).to.deep.equal([
      { source: closed, code: 'URL_UNREACHABLE', reason: unreadable.json.error.details.failed_sources[0].reason },
      { source: `${pages.url}/missing`, code: 'URL_UNREACHABLE', reason: 'HTTP 404', http_status: 404 },
    ]);
  });

  it('refuses requests that are not one of urls or text, with the parameter named', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'urls'],
      [{ urls: [`${pages.url}/volcano`], text: TEXT }, 'text'],
      [{ urls: [`${pages.url}/volcano`], title: 'A title' }, 'title'],
      [{ text: TEXT, max_sentences: 2, max_words: 40 }, 'max_words'],
      [{ text: TEXT, max_tokens: 10 }, 'max_tokens'],
      [{ urls: [] }, 'urls'],
    ];
    for (const [body, parameter] of cases) {
      const response = await summarize(body);
      expect(response.status, JSON.stringify(body)).to.equal(400);
      expect(response.json.error.code).to.equal('INVALID_PARAMETER');
      expect(response.json.error.details.parameter).to.equal(parameter);
    }
  });

  it('needs the summarize scope', async () => {
    const searchOnly = await createKey(service.url, { type: 'scoped', permissions: ['search'] });
    const refused = await summarize({ text: TEXT }, searchOnly.key);
    expect(refused.status).to.equal(403);
    expect(refused.json.error.code).to.equal('INSUFFICIENT_PERMISSIONS');
    expect(refused.json.error.details.required_permission).to.match(/^summarize/);
    const allowed = await createKey(service.url, { type: 'scoped', permissions: ['summarize'] });
    expect((await summarize({ text: TEXT }, allowed.key)).status).to.equal(200);
  });

  it('writes an abstractive summary with the model under the citation rule, and falls back to the extractive one', async () => {
    const asked = llm.requests.length;
    const extractive = await summarize({ urls: [`${pages.url}/volcano`], query: 'airport closed' });
    expect(extractive.json.data.metadata.summary_method).to.equal('extractive');
    expect(llm.requests.length, 'extractive by default: the model is not asked').to.equal(asked);

    const abstractive = await summarize({ urls: [`${pages.url}/volcano`], query: 'airport', method: 'abstractive', format: 'text' });
    expect(abstractive.status, JSON.stringify(abstractive.json)).to.equal(200);
    expect(abstractive.json.data.metadata.summary_method).to.equal('abstractive');
    expect(abstractive.json.data.summary).to.equal('The ash cloud of Mount Etna closed Catania airport for two days [1].');
    const sent = llm.requests.at(-1)!.body;
    expect(sent.messages[0].content).to.include('You summarise the numbered passages');
    expect(sent.messages[1].content).to.match(/^Focus: airport\n\nPassages:\n\n\[1\] The eruption of Mount Etna\nURL: http/);

    const fallback = await summarize({ text: TEXT, method: 'abstractive', format: 'text' });
    expect(fallback.json.data.metadata.summary_method).to.equal('extractive');
    expect(fallback.json.data.metadata.abstractive_fallback).to.equal('invalid');
    expect(citedIn(fallback.json.data.summary).length).to.be.greaterThan(0);
  });
});

/** The answer's count as docs/api.md (Token budgets) states it for summarize. */
function answerTokens(data: { summary: string; sources: { url?: string; title: string; sentences: string[] }[] }): number {
  return countAsDocumented([data.summary, ...data.sources.flatMap((s) => [s.url ?? '', s.title, ...s.sentences])]);
}
