import { expect } from 'chai';
import { searchStages } from '../src/metrics/search-stages.js';
import { call, startTestService, type TestService } from './helpers/service.js';
import { freshDatabase } from './helpers/run-scope.js';
import { startJsonServer, type JsonRequest, type JsonReply, type JsonServer } from './helpers/json-server.js';
import { html, startPageServer, type PageServer } from './helpers/page-server.js';
import { expectSchema } from './helpers/response-schema.js';
import { countAsDocumented } from './helpers/token-count.js';

/** A search answer's count as docs/api.md (Token budgets) states it. */
function searchTokens(data: { summary: string; sources: { url: string; title: string; snippet?: string; chunks?: string[] }[] }): number {
  return countAsDocumented([data.summary, ...data.sources.flatMap((s) => [s.title, s.url, ...(s.chunks ?? [s.snippet ?? ''])])]);
}

// Every server contacted is started here on 127.0.0.1: a page server for deep search, a fake
// SearXNG (its JSON search API) and a fake OpenAI-compatible chat-completions endpoint.

const DAY = 24 * 60 * 60 * 1000;
const recent = new Date(Date.now() - 2 * DAY).toISOString();

function volcano(n: number, mountain: string, detail: string) {
  return { url: `https://volcano.example/report-${n}`, title: `Volcano report: ${mountain}`, content: `The volcanic eruption of ${mountain} sent ash high into the sky. ${detail}` };
}

const WAGGLE = [
  'Honeybees tell their hive mates where flowers are with the waggle dance, performed on the vertical comb inside the dark hive. A forager that found a rich patch of flowers returns and dances among the other bees, which follow her movements closely and then fly out themselves.',
  'The direction of the waggle run on the comb gives the direction of the flowers: the angle between the run and the vertical is the angle between the flowers and the sun as seen from the hive entrance. Bees correct the angle for the movement of the sun during the day.',
  'The duration of the waggle run gives the distance to the flowers: each second of waggling means roughly a kilometre of flight for the honeybees of Europe. Dances for nearby flowers are short, and for flowers close to the hive the bees perform a round dance instead.',
  'Researchers filmed thousands of waggle dances to measure how precisely honeybees encode distance and direction. They found that the dances of experienced foragers are more precise, and that followers average several runs of one dance before leaving the hive.',
].join('\n\n');

/** A small corpus where the right answers are known. */
const CORPUS = [
  { url: 'https://tides.example/moon', title: 'How the Moon raises the tides', published_date: recent, language: 'en',
    content: "The Moon's gravity pulls the oceans towards it, raising a bulge of water that coasts see as high tide. A second bulge forms on the far side of the Earth, so most coasts have two high tides each day. Tidal ranges are largest in narrow bays such as the Bay of Fundy." },
  { url: 'https://www.coastguide.example.org/tides', title: 'Coastal walking guide', published_date: '2019-05-01', language: 'en',
    content: 'Walkers on the coast should check the tide tables before setting out. Rising tides can cut off beaches within minutes when the water returns. Several walkers were rescued last year after ignoring warnings.' },
  { url: 'https://wetter.example.de/gezeiten', title: 'Wie der Mond die Gezeiten erzeugt', language: 'de',
    content: 'Die Anziehungskraft des Mondes zieht das Wasser der Ozeane an. Dadurch entstehen Ebbe und Flut, die Gezeiten, zweimal am Tag an den meisten Küsten. Der Mond ist der wichtigste Grund für die Gezeiten.' },
  { url: 'https://science.blog.example.com/moon-tides', title: 'Moon and tides explained', language: 'en',
    content: 'Tides rise and fall because the Moon tugs on the sea. The Sun also pulls on the oceans, and when Sun and Moon line up, spring tides reach their highest levels.' },
  volcano(1, 'Etna', 'Flights from Catania were cancelled for two days.'),
  volcano(2, 'Stromboli', 'Lava flowed down the north-western slope into the sea.'),
  volcano(3, 'Hekla', 'Farmers moved their sheep away from the grey clouds.'),
  volcano(4, 'Fuego', 'Villages on the southern flank were evacuated overnight.'),
  volcano(5, 'Merapi', 'Pyroclastic flows reached the river valleys below.'),
  { url: 'https://geology.example.net/eruptions', title: 'Why eruptions happen', content: 'Magma rises when pressure builds under a volcano; a volcanic eruption releases it, sometimes with ash clouds.' },
  { url: 'https://earth.example.io/ash', title: 'Living near a volcano', content: 'People living near an active volcano keep masks ready, since ash from a volcanic eruption harms the lungs.' },
  { url: 'https://bakery.example.fr/levain', title: 'Sourdough bread at home', content: 'A sourdough starter needs flour, water and patience. Feed the starter daily, and bake your bread when it doubles in a few hours.' },
  { url: 'https://bakery.example.co.uk/starter', title: 'Baking sourdough bread', content: 'Keep your sourdough starter warm and feed it each morning. Once it is bubbly, mix the dough and bake the bread the next day.' },
  // A bracketed number of the text's own ("74 [14] years") must not read as a citation of the summary.
  { url: 'https://cohort.example/heart-failure', title: 'Heart failure in a community cohort',
    content: 'Patients were 4537 county residents (57% women; mean [SD] age, 74 [14] years) with a diagnosis of heart failure between 1979 and 2000. The incidence of heart failure did not change over time [3, 4].' },
  // Long enough for several passages: chunks_per_source has more than one to return.
  { url: 'https://bees.example/waggle-dance', title: 'The waggle dance of honeybees', content: WAGGLE },
  // Shares one word ("lattice") with a query about physics it has nothing to do with.
  { url: 'https://bakery.example.fr/lattice-pie', title: 'Cherry pie with a lattice crust', content: 'Weave the strips of dough into a lattice over the cherries, brush it with egg and bake the pie for forty minutes.' },
  { url: 'https://breadclub.example.com/sourdough', title: 'Our sourdough bread club', country: 'gb',
    content: 'Members share a sourdough starter and swap tips on bread. We meet in Leeds to bake together every month.' },
];

function searxngAnswer(request: JsonRequest): JsonReply {
  const q = request.url.searchParams.get('q') ?? '';
  const results = (list: unknown[]) => ({ query: q, number_of_results: list.length, results: list, answers: [], corrections: [], infoboxes: [], suggestions: [], unresponsive_engines: [] });
  if (q.includes('glacier')) return { body: results([]), delayMs: 3000 };
  if (q.includes('eclipse')) {
    return { body: results([{ url: 'https://eclipse.example.net/2027', title: 'Total solar eclipse of 2027', content: 'The total solar eclipse of August 2027 crosses Spain and North Africa.', engine: 'duckduckgo', engines: ['duckduckgo'], score: 1 }]), delayMs: 400 };
  }
  if (q.includes('aurora')) {
    return { body: results([
      { url: 'https://aurora.example.net/forecast', title: 'Aurora borealis forecast', content: 'Tonight the aurora borealis forecast shows strong activity over Norway.', engine: 'bing', publishedDate: recent, score: 2 },
      { url: 'https://blocked.example/aurora', title: 'Aurora borealis photos', content: 'Photos of the aurora borealis forecast season.', engine: 'bing', score: 1.5 },
      { url: 'https://archive.example/aurora-2001', title: 'Aurora borealis forecast 2001', content: 'The aurora borealis forecast for the winter of 2001.', engine: 'bing', publishedDate: '2001-01-15T00:00:00', score: 1 },
    ]) };
  }
  return { body: results([]) };
}

function llmAnswer(request: JsonRequest): JsonReply {
  const question = String(request.body?.messages?.[1]?.content ?? '');
  const content = question.startsWith('Question: what does the moon gravity do')
    // The second sentence cites a passage the model was not given: it must be dropped.
    ? "The Moon's gravity raises a bulge of ocean water, which is high tide [1]. Tides are caused by wind [7]."
    : 'NO ANSWER';
  return { body: { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'fake', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] } };
}

describe('POST /v1/search', function () {
  this.timeout(120_000);
  let service: TestService;
  let searxng: JsonServer;
  let llm: JsonServer;
  let pages: PageServer;

  before(async () => {
    searxng = await startJsonServer(searxngAnswer);
    llm = await startJsonServer(llmAnswer);
    const longPage = `<!doctype html><html lang="en"><head><title>The tidal bore</title></head><body><article><h1>The tidal bore</h1>
      <p>A tidal bore is a wave that travels up a river against its current when the tide comes in.</p>
      <p>The tidal bore of the Qiantang River is the largest in the world, with waves up to nine metres high.</p>
      <p>Surfers ride the tidal bore of the Severn for kilometres.</p></article></body></html>`;
    pages = await startPageServer({
      '/bore': html(longPage),
      '/bore-broken': html('server error', 500),
    });
    service = await startTestService({
      DATABASE_URL: await freshDatabase('sev_search_test'),
      SEARXNG_URL: searxng.url,
      SEARXNG_TIMEOUT_MS: '10000',
      LLM_BASE_URL: `${llm.url}/v1`,
      LLM_MODEL: 'fake',
    });
    const documents = [
      ...CORPUS,
      { url: `${pages.url}/bore`, title: 'The tidal bore', content: 'A tidal bore is a wave that travels up a river when the tide comes in.' },
      { url: `${pages.url}/bore-broken`, title: 'River bores', content: 'Tidal bore waves on rivers can be dangerous for boats.' },
    ];
    const indexed = await call(service.url, '/v1/index/documents', { body: { documents } });
    expect(indexed.status).to.equal(200);
    expect(indexed.json.data.errors).to.deep.equal([]);
    expect(indexed.json.data.counts.duplicate).to.equal(0);
  });
  after(async () => {
    await service?.close();
    await Promise.all([searxng?.close(), llm?.close(), pages?.close()]);
  });

  const search = (body: Record<string, unknown>) => call(service.url, '/v1/search', { body: { options: { enable_cache: false }, ...body } });
  const hosts = (response: { json: any }) => (response.json.data.sources as { domain: string }[]).map((s) => s.domain);

  it('answers with ranked, attributed sources, a cited summary and metadata', async () => {
    const response = await search({ query: 'why does the moon cause tides' });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    const { data } = response.json;
    expect(data.sources.length).to.be.within(2, 10);
    expect(data.sources[0].url).to.be.oneOf(['https://tides.example/moon', 'https://science.blog.example.com/moon-tides']);
    for (const source of data.sources) {
      expect(source).to.include.keys('url', 'title', 'snippet', 'confidence', 'domain');
      expect(source.confidence).to.be.within(0, 1);
      expect(source.snippet.length).to.be.within(1, 400);
    }
    const confidences = data.sources.map((s: { confidence: number }) => s.confidence);
    expect(confidences[0]).to.equal(Math.max(...confidences));
    expect(data.sources.find((s: { url: string }) => s.url === 'https://tides.example/moon').published_date).to.equal(recent);
    const cited = [...(data.summary as string).matchAll(/\[\[(\d+)\]\]/g)].map((m) => Number(m[1]));
    expect(cited.length).to.be.greaterThan(0);
    for (const n of cited) expect(n).to.be.within(1, data.sources.length);
    expect(data.metadata.query_time).to.be.greaterThan(0);
    expect(data.metadata.sources_analyzed).to.be.at.least(data.sources.length);
    expect(data.metadata.confidence_score).to.be.within(0.01, 1);
    expect(data.metadata.summary_method).to.equal('extractive');
    expect(data.cache).to.deep.equal({ hit: false });
    expect(response.json.request_id).to.be.a('string');
  });

  it('announces the stages of an uncached search in order, for a profiler in the process', async () => {
    const seen: unknown[] = [];
    const listen = (stage: unknown) => seen.push(stage);
    searchStages.subscribe(listen);
    try {
      const response = await call(service.url, '/v1/search', { body: { query: 'why do the tides rise twice a day', options: { enable_cache: false } } });
      expect(response.status).to.equal(200);
    } finally {
      searchStages.unsubscribe(listen);
    }
    expect(seen).to.deep.equal(['start', 'weigh query', 'read postings', 'score postings', 'filter and read passages', 'rank sources', 'summary', 'answer']);
  });

  it('returns at most max_results sources', async () => {
    const response = await search({ query: 'volcanic eruption ash', max_results: 2 });
    expect(response.json.data.sources).to.have.length(2);
  });

  // Other domains' pages that match as well as these (a much weaker one would not be brought in: test/rank-sources.test.ts).
  it('lists at most three results of one domain while other domains have comparable results, then fills up', async () => {
    const five = hosts(await search({ query: 'volcanic eruption ash', max_results: 5 }));
    expect(five.filter((d) => d === 'volcano.example')).to.have.length(3);
    expect(five).to.include.members(['geology.example.net', 'earth.example.io']);
    // No other domain has more to offer: the held-back results fill the list.
    const seven = hosts(await search({ query: 'volcanic eruption ash', max_results: 7 }));
    expect(seven.filter((d) => d === 'volcano.example')).to.have.length(5);
  });

  it('keeps only sources in the requested language', async () => {
    const german = await search({ query: 'Mond Gezeiten', language: 'de' });
    expect(hosts(german)).to.deep.equal(['wetter.example.de']);
    const english = await search({ query: 'moon tides', language: 'en' });
    expect(hosts(english)).to.not.include('wetter.example.de');
  });

  it('favours the requested country without removing the others', async () => {
    const france = await search({ query: 'sourdough starter bread', country: 'fr' });
    expect(hosts(france)[0]).to.equal('bakery.example.fr');
    expect(hosts(france)).to.have.length(3);
    // By its top-level domain (uk is GB) and by the country the document declared.
    const britain = await search({ query: 'sourdough starter bread', country: 'GB' });
    expect(hosts(britain).slice(0, 2)).to.have.members(['bakery.example.co.uk', 'breadclub.example.com']);
    expect(hosts(britain)[2]).to.equal('bakery.example.fr');
  });

  it('filters by recency on the published date, or the fetch date when none is known', async () => {
    const response = await search({ query: 'tides', recency: 'week' });
    const urls = (response.json.data.sources as { url: string }[]).map((s) => s.url);
    expect(urls).to.include('https://tides.example/moon'); // published two days ago
    expect(urls).to.include('https://science.blog.example.com/moon-tides'); // undated, fetched now
    expect(urls).to.not.include('https://www.coastguide.example.org/tides'); // published 2019
  });

  it('includes a domain with its subdomains, and excludes domains', async () => {
    const included = await search({ query: 'moon tides', domain_filter: { include: ['example.com'] } });
    expect(hosts(included)).to.deep.equal(['science.blog.example.com']);
    const excluded = await search({ query: 'moon tides', domain_filter: { exclude: ['tides.example', 'blog.example.com'] } });
    expect(hosts(excluded)).to.not.include.members(['tides.example', 'science.blog.example.com']);
    expect(hosts(excluded).length).to.be.greaterThan(0);
  });

  it('renders the summary as text, markdown, html or json, with citations of returned sources only', async () => {
    const text = await search({ query: 'moon tides', format: 'text' });
    expect(text.json.data.summary).to.match(/\[1\]/).and.not.include('](');
    const html = await search({ query: 'moon tides', format: 'html' });
    expect(html.json.data.summary).to.match(/^<p>.*<sup><a href="https:\/\/[^"]+">\[1\]<\/a><\/sup>.*<\/p>$/s);
    const json = await search({ query: 'moon tides', format: 'json' });
    const { sentences } = json.json.data.summary;
    expect(sentences.length).to.be.greaterThan(0);
    for (const sentence of sentences) {
      expect(sentence.text).to.be.a('string').and.not.match(/\[\d+\]/);
      for (const n of sentence.citations) expect(n).to.be.within(1, json.json.data.sources.length);
    }
  });

  it('keeps bracketed numbers of the sources\' own text from reading as citations, in every format', async () => {
    for (const format of ['text', 'markdown', 'html']) {
      const response = await search({ query: 'heart failure diagnosis age residents', format });
      expect(response.status, JSON.stringify(response.json)).to.equal(200);
      const { summary, sources } = response.json.data;
      expect(summary).to.include('74 (14) years').and.include('mean [SD] age');
      const cited = [...(summary as string).matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
      expect(cited.length, summary).to.be.greaterThan(0);
      for (const n of cited) expect(n, summary).to.be.within(1, sources.length);
    }
    const json = await search({ query: 'heart failure diagnosis age residents', format: 'json' });
    expect(json.json.data.summary.sentences.map((s: { text: string }) => s.text).join(' ')).to.include('74 (14) years');
  });

  it('returns each source\'s best passages as chunks instead of a snippet', async () => {
    const response = await search({ query: 'honeybees waggle dance flowers distance direction', chunks_per_source: 3, format: 'json' });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    expectSchema('search.response', response.json.data);
    const [first] = response.json.data.sources;
    expect(first.url).to.equal('https://bees.example/waggle-dance');
    expect(first).not.to.have.property('snippet');
    expect(first.chunks).to.have.length(3);
    for (const chunk of first.chunks) expect(WAGGLE).to.include(chunk);
    const one = await search({ query: 'honeybees waggle dance flowers distance direction', chunks_per_source: 1 });
    expect(one.json.data.sources[0].chunks).to.deep.equal([first.chunks[0]]);
  });

  it('fits max_tokens, counted as documented: sources kept from the first, texts cut at sentence bounds', async () => {
    const body = { query: 'honeybees waggle dance flowers distance direction', chunks_per_source: 4, format: 'markdown' };
    const whole = await search({ ...body, max_tokens: 100_000 });
    expect(whole.json.data.truncated).to.equal(false);
    const wholeTokens = searchTokens(whole.json.data);
    expect(whole.json.data.budget).to.deep.equal({ max_tokens: 100_000, tokens: wholeTokens, omitted_tokens: 0 });
    for (const budget of [Math.floor(wholeTokens / 2), 120]) {
      const cut = await search({ ...body, max_tokens: budget });
      expect(cut.status, JSON.stringify(cut.json)).to.equal(200);
      expectSchema('search.response', cut.json.data);
      const { data } = cut.json;
      expect(data.truncated).to.equal(true);
      const tokens = searchTokens(data);
      expect(tokens).to.be.at.most(budget);
      expect(data.budget).to.deep.equal({ max_tokens: budget, tokens, omitted_tokens: wholeTokens - tokens });
      // The sources kept are the first ones of the whole answer; their chunks are its chunks' first sentences.
      const urls = data.sources.map((s: { url: string }) => s.url);
      expect(urls).to.deep.equal(whole.json.data.sources.slice(0, urls.length).map((s: { url: string }) => s.url));
      data.sources.forEach((s: { chunks: string[] }, i: number) => {
        s.chunks.forEach((chunk, k) => expect(whole.json.data.sources[i].chunks[k].replace(/\s+/g, ' ')).to.include(chunk));
      });
      for (const m of (data.summary as string).matchAll(/\[\[(\d+)\]\]/g)) expect(Number(m[1])).to.be.within(1, urls.length);
    }
    const snippets = await search({ query: 'moon tides', max_tokens: 60, format: 'text' });
    expect(searchTokens(snippets.json.data)).to.be.at.most(60);
    expect(snippets.json.data.truncated).to.equal(true);
  });

  it('leaves sources and citations out when include_sources is false', async () => {
    const response = await search({ query: 'moon tides', include_sources: false, format: 'text' });
    expect(response.json.data).to.not.have.property('sources');
    expect(response.json.data.summary).to.be.a('string').and.not.match(/\[\d+\]/);
    expect(response.json.data.summary.length).to.be.greaterThan(20);
  });

  it('answers NO_RESULTS_FOUND when nothing is relevant, never an empty success', async () => {
    const nothing = await search({ query: 'xylophone quartz zeppelin' });
    expect(nothing.status).to.equal(422);
    expect(nothing.json.error.code).to.equal('NO_RESULTS_FOUND');
    // One word in common is below the relevance floor: the pie page is no answer about physics.
    const unrelated = await search({ query: 'quantum chromodynamics lattice gauge' });
    expect(unrelated.status, JSON.stringify(unrelated.json.data?.sources)).to.equal(422);
    expect(unrelated.json.error.code).to.equal('NO_RESULTS_FOUND');
    expect((await search({ query: 'lattice crust for a cherry pie' })).json.data.sources[0].url).to.equal('https://bakery.example.fr/lattice-pie');
    const filtered = await search({ query: 'moon tides', domain_filter: { include: ['nowhere.example'] } });
    expect(filtered.json.error.code).to.equal('NO_RESULTS_FOUND');
  });

  it('answers SEARCH_TIMEOUT when the time limit passes before any source answered', async () => {
    const started = Date.now();
    const response = await search({ query: 'glacier retreat', options: { timeout: 1, enable_cache: false } });
    expect(response.status).to.equal(422);
    expect(response.json.error.code).to.equal('SEARCH_TIMEOUT');
    expect(response.json.error.details).to.deep.equal({ timeout_seconds: 1 });
    expect(Date.now() - started).to.be.below(2500);
  });

  it('refuses parameters outside the specification', async () => {
    for (const body of [{ query: 'x', max_results: 21 }, { query: 'x', language: 'it' }, { query: '' }, { query: 'x', country: 'XX' }, { query: 'x', recency: 'hour' }]) {
      const response = await call(service.url, '/v1/search', { body });
      expect(response.status, JSON.stringify(body)).to.equal(400);
    }
  });

  describe('upstream engine', () => {
    it('merges SearXNG results, re-checked against the request filters', async () => {
      const response = await search({ query: 'aurora borealis forecast', recency: 'year', domain_filter: { exclude: ['blocked.example'] } });
      expect(response.status, JSON.stringify(response.json)).to.equal(200);
      expect(hosts(response)).to.deep.equal(['aurora.example.net']);
      expect(response.json.data.sources[0].published_date).to.equal(recent);
      const query = searxng.requests.at(-1)!.url.searchParams;
      expect(query.get('format')).to.equal('json');
      expect(query.get('time_range')).to.equal('year');
    });
  });

  describe('deep search', () => {
    it('reads the best pages live, skips the one that fails, and uses the full text', async () => {
      // Only the local pages: the corpus's other hosts do not exist, and no test sends traffic elsewhere.
      const response = await search({ query: 'tidal bore river', domain_filter: { include: ['127.0.0.1'] }, options: { deep_search: true, enable_cache: false } });
      expect(response.status, JSON.stringify(response.json)).to.equal(200);
      const { data } = response.json;
      expect(data.metadata.deep_search).to.deep.equal({ pages_fetched: 1, pages_failed: 1 });
      // Both pages are listed (their order is the ranking's: the live page's full text is long
      // beside this corpus's one-sentence passages, the failed page keeps its short indexed text).
      expect(data.sources.map((s: { url: string }) => s.url)).to.include(`${pages.url}/bore`);
      // Only the live page says this; the indexed text does not.
      expect(data.summary).to.include('Qiantang');
      expect(data.sources.map((s: { url: string }) => s.url)).to.include(`${pages.url}/bore-broken`);
    });
  });

  describe('abstractive summary', () => {
    it('uses the model when it answers under the citation rule, dropping sentences that cite no given source', async () => {
      const response = await search({ query: 'what does the moon gravity do', format: 'text' });
      const { data } = response.json;
      expect(data.metadata.summary_method).to.equal('abstractive');
      expect(data.summary).to.equal("The Moon's gravity raises a bulge of ocean water, which is high tide [1].");
    });

    it('falls back to the extractive summary when the model has no answer', async () => {
      const response = await search({ query: 'moon tides' });
      expect(response.json.data.metadata.summary_method).to.equal('extractive');
      expect(response.json.data.summary).to.match(/\[\[1\]\]/);
    });
  });

  describe('result cache', () => {
    it('answers a repeated search from the cache, and not when enable_cache is false', async () => {
      const body = { query: 'Spring tides Sun Moon', max_results: 3 };
      const first = await call(service.url, '/v1/search', { body });
      expect(first.json.data.cache).to.deep.equal({ hit: false });
      const second = await call(service.url, '/v1/search', { body: { ...body, query: '  spring TIDES sun moon ', format: 'markdown' } });
      expect(second.json.data.cache.hit).to.equal(true);
      expect(second.json.data.cache.age_seconds).to.be.at.least(0);
      expect(second.json.data.sources).to.deep.equal(first.json.data.sources);
      expect(second.json.data.summary).to.equal(first.json.data.summary);
      const fresh = await call(service.url, '/v1/search', { body: { ...body, options: { enable_cache: false } } });
      expect(fresh.json.data.cache).to.deep.equal({ hit: false });
      const other = await call(service.url, '/v1/search', { body: { ...body, max_results: 4 } });
      expect(other.json.data.cache).to.deep.equal({ hit: false });
    });

    it('forgets search answers cleared by their tag', async () => {
      const body = { query: 'coast walkers tide tables' };
      await call(service.url, '/v1/search', { body });
      expect((await call(service.url, '/v1/search', { body })).json.data.cache.hit).to.equal(true);
      const cleared = await call(service.url, '/v1/cache/clear', { method: 'DELETE', body: { tags: ['search'] } });
      expect(cleared.json.data.deleted).to.be.at.least(1);
      expect((await call(service.url, '/v1/search', { body })).json.data.cache.hit).to.equal(false);
    });
  });

  it('runs ten identical concurrent searches as one job', async () => {
    const completed = async () => {
      const text = await (await fetch(`${service.url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('sev_jobs_total{') && l.includes('queue="search"') && l.includes('outcome="completed"'));
      return Number(line?.split(' ').at(-1) ?? 0);
    };
    const before = await completed();
    const responses = await Promise.all(Array.from({ length: 10 }, () => search({ query: 'total solar eclipse' })));
    for (const response of responses) {
      expect(response.status).to.equal(200);
      expect(response.json.data.sources[0].url).to.equal('https://eclipse.example.net/2027');
    }
    expect(new Set(responses.map((r) => r.json.request_id)).size).to.equal(10);
    expect(await completed()).to.equal(before + 1);
  });
});
