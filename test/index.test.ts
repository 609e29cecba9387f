import { expect } from 'chai';
import { sql } from 'kysely';
import type { Mode } from '../src/mode.js';
import { MysqlDocumentIndex } from '../src/index/mysql-document-index.js';
import { DEFAULT_TUNING } from '../src/index/retriever.js';
import type { IndexDocumentInput } from '../src/index/types.js';
import { createCpuPool, type CpuPool } from '../src/pool/pool.js';
import { openStorage, type Storage } from '../src/storage/connection.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { prepareDocuments } from '../src/index/prepare-documents.js';
import { analyze, analyzeQuery } from '../src/text/analyze.js';
import { prng } from './helpers/prng.js';
import { BLOCK_SPAN, decodeIdSet, decodePostings, encodeBlocks, encodeIdSet, encodePostings, unpackLists } from '../src/index/postings-codec.js';
import { createSegment, insertLists, PACK_MAX_POSTINGS, PACKED_TERM } from '../src/index/segments.repository.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
const RUN = Math.random().toString(36).slice(2, 8);
// Modes of this run only (the column takes any short name), so its corpus statistics are its own.
const MODE_A = `a${RUN}` as Mode;
const MODE_B = `b${RUN}` as Mode;

function doc(url: string, text: string, extra: Partial<IndexDocumentInput> = {}): IndexDocumentInput {
  return { url, title: null, text, language: 'en', author: null, publishedAt: null, fetchedAt: new Date(), countryHint: null, authority: null, ...extra };
}

/** Sentences over a Zipf-like vocabulary: a few words in most passages, many rare ones. */
function syntheticCorpus(documents: number): IndexDocumentInput[] {
  const random = prng(42);
  const vocabulary = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}`);
  const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)]!;
  return Array.from({ length: documents }, (_, d) => {
    const sentences = Array.from({ length: 4 + Math.floor(random() * 12) }, () =>
      `${Array.from({ length: 6 + Math.floor(random() * 14) }, word).join(' ')}.`);
    return doc(`https://exact-${RUN}.test/${d}`, sentences.join(' '));
  });
}

/** Exhaustive BM25 (k1 0.9, b 0.4) over every passage, written out independently of the index. */
function exhaustiveTop(corpus: IndexDocumentInput[], query: string, k: number): { url: string; text: string; score: number }[] {
  const prepared = prepareDocuments({ documents: corpus.map((d) => ({ title: d.title, text: d.text, language: 'en' })) });
  const passages = prepared.flatMap((p, d) => p.passages.map((passage) => ({ url: corpus[d]!.url, passage })));
  const avgdl = passages.reduce((s, p) => s + p.passage.length, 0) / passages.length;
  const df = new Map<string, number>();
  for (const { passage } of passages) for (const t of passage.terms) df.set(t, (df.get(t) ?? 0) + 1);
  const scored = passages.map(({ url, passage }, order) => {
    let score = 0;
    for (const term of new Set(analyzeQuery(query, 'en'))) {
      const at = passage.terms.indexOf(term);
      if (at < 0) continue;
      const n = df.get(term)!;
      const tf = passage.tfs[at]!;
      score += Math.log(1 + (passages.length - n + 0.5) / (n + 0.5)) * (tf * 1.9) / (tf + 0.9 * (0.6 + 0.4 * passage.length / avgdl));
    }
    return { url, text: passage.text, score, order };
  });
  return scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score || a.order - b.order).slice(0, k)
    .map(({ url, text, score }) => ({ url, text, score }));
}

describe('search index (MySQL)', function () {
  this.timeout(120_000);
  let storage: Storage;
  let pool: CpuPool;
  let index: MysqlDocumentIndex;

  before(async () => {
    storage = openStorage(DATABASE_URL, 4);
    await migrateToLatest(storage.db);
    pool = createCpuPool({ threads: 2, taskTimeoutMs: 30_000 });
    index = new MysqlDocumentIndex(storage.db, pool);
  });
  after(async () => {
    for (const mode of [MODE_A, MODE_B]) await emptyMode(mode, 'test');
    await index.close();
    await pool.close();
    await storage.close();
  });

  /** Takes a test's mode out of the shared database: its documents (by domain), its merges settled, its terms and statistics. */
  async function emptyMode(mode: Mode, ...domains: string[]): Promise<void> {
    for (const domain of domains) await index.deleteByDomain(mode, domain);
    await index.settle(mode);
    await storage.db.deleteFrom('index_terms').where('mode', '=', mode).execute();
    await storage.db.deleteFrom('index_stats').where('mode', '=', mode).execute();
  }

  /** df of every term equals the live passages in its stored postings; the statistics and document lengths match the passages. */
  async function statisticsAreConsistent(mode: Mode): Promise<void> {
    const live = new Set((await storage.db.selectFrom('index_passages as p').innerJoin('index_documents as d', 'd.id', 'p.document_id')
      .select('p.id').where('d.mode', '=', mode).execute()).map((r) => Number(r.id)));
    const counted = new Map<number, number>();
    const rows = await storage.db.selectFrom('index_segment_postings as sp').innerJoin('index_segments as s', 's.id', 'sp.segment_id')
      .select(['sp.term_id', 'sp.data']).where('s.mode', '=', mode).where('s.state', '=', 'active').execute();
    // A small segment's lists are one packed value (segments.repository.ts), the others a row per term and block.
    const chunks: { termId: number; data: Uint8Array }[] = [];
    for (const row of rows) {
      if (Number(row.term_id) !== PACKED_TERM) chunks.push({ termId: Number(row.term_id), data: row.data });
      else for (const list of unpackLists(row.data)) chunks.push(...list.chunks.map(({ data }) => ({ termId: list.termId, data })));
    }
    for (const chunk of chunks) {
      const n = decodePostings(chunk.data).passages.filter((id) => live.has(id)).length;
      counted.set(chunk.termId, (counted.get(chunk.termId) ?? 0) + n);
    }
    const terms = await storage.db.selectFrom('index_terms').select(['id', 'term', 'df']).where('mode', '=', mode).execute();
    const wrong = terms.filter((t) => Number(t.df) !== (counted.get(Number(t.id)) ?? 0)).map((t) => t.term);
    expect(wrong).to.deep.equal([]);
    const stats = await storage.db.selectFrom('index_stats').selectAll().where('mode', '=', mode).executeTakeFirstOrThrow();
    const actual = await sql<{ n: number; total: string | null }>`
      SELECT COUNT(*) AS n, SUM(p.length) AS total FROM index_passages p JOIN index_documents d ON d.id = p.document_id WHERE d.mode = ${mode}`.execute(storage.db);
    expect(Number(stats.passages)).to.equal(Number(actual.rows[0]!.n));
    expect(Number(stats.total_length)).to.equal(Number(actual.rows[0]!.total ?? 0));
    const documents = await sql<{ length: number; passages: string | null }>`
      SELECT d.length, (SELECT SUM(p.length) FROM index_passages p WHERE p.document_id = d.id) AS passages FROM index_documents d WHERE d.mode = ${mode}`.execute(storage.db);
    expect(Number(stats.documents)).to.equal(documents.rows.length);
    expect(documents.rows.filter((d) => Number(d.length) !== Number(d.passages ?? 0))).to.deep.equal([]);
  }

  it('indexes documents into passages that a query word finds', async () => {
    const outcomes = await index.indexDocuments(MODE_A, [
      doc(`https://news.site-${RUN}.test/whales`, 'Blue whales sing at low frequencies. Their songs travel across oceans.', { title: 'Whale song' }),
      doc(`https://news.site-${RUN}.test/bees`, 'Honey bees dance to show where flowers grow. A hive shares the map.'),
    ]);
    expect(outcomes.map((o) => o.status)).to.deep.equal(['indexed', 'indexed']);
    expect(outcomes[0]!.passages).to.equal(1);
    const hits = await index.retrieve(MODE_A, 'whales songs', { limit: 10 });
    expect(hits).to.have.length(1);
    expect(hits[0]!.url).to.equal(`https://news.site-${RUN}.test/whales`);
    expect(hits[0]!.title).to.equal('Whale song');
    expect(hits[0]!.domain).to.equal(`news.site-${RUN}.test`);
    expect(hits[0]!.text).to.contain('Blue whales');
    expect((await index.retrieve(MODE_A, 'song', { limit: 10 }))[0]!.url, 'title terms are indexed').to.equal(`https://news.site-${RUN}.test/whales`);
    // Ranking scores whole documents by BM25: each document's length and the mode's average.
    const whaleLength = analyze('Whale song', 'en').length + analyze('Blue whales sing at low frequencies. Their songs travel across oceans.', 'en').length;
    const beeLength = analyze('Honey bees dance to show where flowers grow. A hive shares the map.', 'en').length;
    expect(hits[0]!.documentLength).to.equal(whaleLength);
    expect((await index.queryWeights(MODE_A, 'whales')).avgDocumentLength).to.equal((whaleLength + beeLength) / 2);
    await statisticsAreConsistent(MODE_A);
  });

  it('weighs a query and retrieves its passages from one reading of the statistics, as queryWeights and retrieve answer apart', async () => {
    for (const [query, options] of [['whales songs', { limit: 10 }], ['honey bee dance', { limit: 1, language: 'en' }], ['glaciers', { limit: 10 }]] as const) {
      const together = await index.retrieveWeighed(MODE_A, query, options);
      expect(together.passages).to.deep.equal(await index.retrieve(MODE_A, query, options));
      expect(together.weights).to.deep.equal(await index.queryWeights(MODE_A, query, 'language' in options ? options.language : undefined));
    }
  });

  it('finds a German compound by its part, and Japanese and Chinese sentences by a query word', async () => {
    await index.indexDocuments(MODE_A, [
      doc(`https://lang.site-${RUN}.test/de`, 'Die Krankenhausfinanzierung wurde im Landtag lange beraten.', { language: 'de' }),
      doc(`https://lang.site-${RUN}.test/ja`, '東京大学の研究者が新しい薬を開発した。', { language: null }),
      doc(`https://lang.site-${RUN}.test/zh`, '北京大学的研究人员开发了一种新药。', { language: null }),
    ]);
    const found = async (query: string, language?: string) =>
      (await index.retrieve(MODE_A, query, { limit: 10, ...(language ? { language } : {}) })).map((h) => h.url.split('/').pop());
    expect(await found('Finanzierung', 'de')).to.deep.equal(['de']);
    expect(await found('Krankenhaus', 'de')).to.deep.equal(['de']);
    expect(await found('開発', 'ja')).to.deep.equal(['ja']);
    expect(await found('新药', 'zh')).to.deep.equal(['zh']);
    // Both sentences speak of 大学 (university): one word, both scripts' documents.
    expect((await found('大学')).sort()).to.deep.equal(['ja', 'zh']);
    await statisticsAreConsistent(MODE_A);
  });

  it('leaves an unchanged document alone and replaces the passages of a changed one', async () => {
    const url = `https://news.site-${RUN}.test/changing`;
    const first = await index.indexDocuments(MODE_A, [doc(url, 'Glaciers retreat in warm summers.')]);
    const again = await index.indexDocuments(MODE_A, [doc(url, 'Glaciers retreat in warm summers.')]);
    expect(again[0]).to.include({ status: 'unchanged', documentId: first[0]!.documentId });
    const changed = await index.indexDocuments(MODE_A, [doc(url, 'Volcanoes erupt under thin crust.')]);
    expect(changed[0]!.status).to.equal('replaced');
    expect(await index.retrieve(MODE_A, 'glaciers', { limit: 10 })).to.deep.equal([]);
    expect((await index.retrieve(MODE_A, 'volcanoes', { limit: 10 })).map((h) => h.url)).to.deep.equal([url]);
    const [glacier, volcano] = analyze('glaciers volcanoes', 'en');
    const terms = await storage.db.selectFrom('index_terms').select(['term', 'df']).where('mode', '=', MODE_A).where('term', 'in', [glacier!, volcano!]).execute();
    expect(Object.fromEntries(terms.map((t) => [t.term, t.df]))).to.deep.equal({ [glacier!]: 0, [volcano!]: 1 });
    await statisticsAreConsistent(MODE_A);
  });

  it('recognises a syndicated copy and lists one story once', async () => {
    const story = 'The city council approved a new budget on Tuesday after a long debate about parks, schools and roads. '
      + 'Members argued for hours over the cost of repairing bridges and the pay of teachers in the district. '
      + 'The mayor said the plan balances the needs of every neighbourhood while keeping taxes flat for the coming year.';
    const [original] = await index.indexDocuments(MODE_A, [doc(`https://daily.paper-${RUN}.test/budget`, story)]);
    const [copy] = await index.indexDocuments(MODE_A, [doc(`https://www.aggregator-${RUN}.test/budget`, `${story} Reprinted.`)]);
    expect(copy).to.include({ status: 'duplicate', duplicateOf: original!.documentId });
    const hits = await index.retrieve(MODE_A, 'council budget bridges teachers', { limit: 10 });
    expect(hits.filter((h) => h.url.includes('budget'))).to.have.length(1);
  });

  it('filters by language, domain (with subdomains) and publication date', async () => {
    await index.indexDocuments(MODE_A, [
      doc(`https://a.filter-${RUN}.test/1`, 'Lighthouse keepers log the storms.', { language: 'en', publishedAt: new Date('2024-05-01') }),
      doc(`https://b.filter-${RUN}.test/2`, 'Lighthouse lamps turn all night.', { language: 'fr', publishedAt: new Date('2020-01-01') }),
      doc(`https://other-${RUN}.test/3`, 'Lighthouse towers stand on rocks.', { language: 'en-GB', fetchedAt: new Date('2022-06-01') }),
    ]);
    const urls = async (options: object) => (await index.retrieve(MODE_A, 'lighthouse', { limit: 10, ...options })).map((h) => h.url).sort();
    expect(await urls({})).to.have.length(3);
    expect(await urls({ language: 'en' })).to.deep.equal([`https://a.filter-${RUN}.test/1`, `https://other-${RUN}.test/3`]);
    expect(await urls({ domains: { include: [`filter-${RUN}.test`] } })).to.deep.equal([`https://a.filter-${RUN}.test/1`, `https://b.filter-${RUN}.test/2`]);
    expect(await urls({ domains: { exclude: [`b.filter-${RUN}.test`] } })).to.deep.equal([`https://a.filter-${RUN}.test/1`, `https://other-${RUN}.test/3`]);
    expect(await urls({ publishedAfter: new Date('2023-01-01') })).to.deep.equal([`https://a.filter-${RUN}.test/1`]);
    // Undated: judged by when it was fetched.
    expect(await urls({ publishedAfter: new Date('2022-01-01') })).to.deep.equal([`https://a.filter-${RUN}.test/1`, `https://other-${RUN}.test/3`]);
  });

  it('searches a small included site in full, however many passages of other sites outrank its own', async () => {
    const mode = `d${RUN}` as Mode;
    // Filters applied after ranking see only the best 40 passages here; the big site has 60
    // passages that outrank every passage of the small one.
    const tuning = { ...DEFAULT_TUNING, maxCandidates: 40 };
    const big = Array.from({ length: 60 }, (_, i) => doc(`https://big-${RUN}.test/${i}`, `Kelp kelp kelp forests, note ${i}.`));
    const small = [
      doc(`https://small-${RUN}.test/a`, 'The harbour report mentions kelp once among many other observations about boats, tides and weather.'),
      doc(`https://www.small-${RUN}.test/b`, 'Divers counted fish near the pier, and a little kelp, during a long and otherwise quiet morning.'),
    ];
    try {
      await index.indexDocuments(mode, [...big, ...small]);
      const include = { domains: { include: [`small-${RUN}.test`] }, limit: 10 };
      const filteredWhileScoring = new MysqlDocumentIndex(storage.db, pool, {}, tuning);
      expect((await filteredWhileScoring.retrieve(mode, 'kelp', include)).map((h) => h.url).sort()).to.deep.equal(small.map((d) => d.url).sort());
      // The same filter applied to the ranking afterwards (a domain too big to list) finds nothing within the 40.
      const filteredAfter = new MysqlDocumentIndex(storage.db, pool, {}, { ...tuning, maxAllowed: 0 });
      expect(await filteredAfter.retrieve(mode, 'kelp', include)).to.deep.equal([]);
      // Other filters still apply on top.
      const excluded = await filteredWhileScoring.retrieve(mode, 'kelp', { ...include, domains: { include: [`small-${RUN}.test`], exclude: [`www.small-${RUN}.test`] } });
      expect(excluded.map((h) => h.url)).to.deep.equal([small[0]!.url]);
    } finally {
      await emptyMode(mode, `big-${RUN}.test`, `small-${RUN}.test`);
    }
  });

  it('answers from remembered postings as from MySQL, seeing new segments, merges and deletions', async () => {
    const mode = `p${RUN}` as Mode;
    const remembering = new MysqlDocumentIndex(storage.db, pool, {}, DEFAULT_TUNING);
    const reading = new MysqlDocumentIndex(storage.db, pool, {}, { ...DEFAULT_TUNING, postingsCacheBytes: 0 });
    // Room for a few lists only: entries are evicted while queries run.
    const tight = new MysqlDocumentIndex(storage.db, pool, {}, { ...DEFAULT_TUNING, postingsCacheBytes: 600 });
    const same = async (query: string) => {
      const expected = await reading.retrieve(mode, query, { limit: 10 });
      for (const index of [remembering, tight]) {
        const [first, again] = [await index.retrieve(mode, query, { limit: 10 }), await index.retrieve(mode, query, { limit: 10 })];
        expect(first).to.deep.equal(expected);
        expect(again).to.deep.equal(expected);
      }
      return expected.map((h) => h.url.split('/').pop());
    };
    try {
      await index.indexDocuments(mode, [doc(`https://puffin-${RUN}.test/1`, 'Puffins nest in burrows on cliffs.'), doc(`https://puffin-${RUN}.test/2`, 'Gannets dive for fish.')]);
      expect(await same('puffins burrows')).to.deep.equal(['1']);
      // A new segment holds the new document's postings.
      await index.indexDocuments(mode, [doc(`https://puffin-${RUN}.test/3`, 'Puffins carry fish to their burrows.')]);
      expect((await same('puffins burrows')).sort()).to.deep.equal(['1', '3']);
      await index.settle(mode);
      expect((await same('puffins burrows')).sort()).to.deep.equal(['1', '3']);
      await index.deleteByUrls(mode, [`https://puffin-${RUN}.test/1`]);
      expect(await same('puffins burrows')).to.deep.equal(['3']);
    } finally {
      await emptyMode(mode, `puffin-${RUN}.test`);
      for (const opened of [remembering, reading, tight]) await opened.close();
    }
  });

  it('deletes by URL and by domain, subdomains included', async () => {
    expect(await index.deleteByUrls(MODE_A, [`https://other-${RUN}.test/3`, `https://nowhere-${RUN}.test/`])).to.equal(1);
    expect(await index.deleteByDomain(MODE_A, `filter-${RUN}.test`)).to.equal(2);
    expect(await index.retrieve(MODE_A, 'lighthouse', { limit: 10 })).to.deep.equal([]);
    await statisticsAreConsistent(MODE_A);
  });

  it('keeps modes apart', async () => {
    const url = `https://news.site-${RUN}.test/whales`;
    expect(await index.retrieve(MODE_B, 'whales', { limit: 10 })).to.deep.equal([]);
    const [outcome] = await index.indexDocuments(MODE_B, [doc(url, 'Grey whales migrate along the coast.')]);
    expect(outcome!.status).to.equal('indexed');
    expect((await index.retrieve(MODE_B, 'whales', { limit: 10 }))[0]!.text).to.contain('Grey whales');
    expect((await index.retrieve(MODE_A, 'whales', { limit: 10 }))[0]!.text).to.contain('Blue whales');
    expect(await index.deleteByDomain(MODE_B, `site-${RUN}.test`)).to.equal(1);
    expect((await index.retrieve(MODE_A, 'whales', { limit: 10 }))).to.have.length(1);
  });

  async function activeSegments(mode: Mode) {
    return storage.db.selectFrom('index_segments').select(['id', 'level', 'postings', 'dead_postings']).where('mode', '=', mode).where('state', '=', 'active').execute();
  }

  async function expectExhaustive(mode: Mode, corpus: IndexDocumentInput[], seed: number, queries: number): Promise<void> {
    const random = prng(seed);
    for (let q = 0; q < queries; q++) {
      const query = Array.from({ length: 2 + Math.floor(random() * 5) }, () => `w${Math.floor(400 * random() ** 2).toString(36)}`).join(' ');
      const expected = exhaustiveTop(corpus, query, 10);
      const actual = await index.retrieve(mode, query, { limit: 10 });
      expect(actual.map((h) => [h.url, h.text]), query).to.deep.equal(expected.map((e) => [e.url, e.text]));
      actual.forEach((hit, i) => expect(hit.score).to.be.closeTo(expected[i]!.score, 1e-9));
    }
  }

  it('merges many small segments into few, from two processes at once, without changing a result', async () => {
    const mode = `m${RUN}` as Mode;
    const corpus = syntheticCorpus(300).map((d, i) => ({ ...d, url: `https://merge-${RUN}.test/${i}` }));
    // A second index object stands for a second worker process: its merges take the same MySQL lock.
    const other = new MysqlDocumentIndex(storage.db, pool);
    try {
      for (let i = 0; i < corpus.length; i += 10) await (i % 20 === 0 ? index : other).indexDocuments(mode, corpus.slice(i, i + 10));
      await Promise.all([index.settle(mode), other.settle(mode)]);
      const segments = await activeSegments(mode);
      expect(segments.length, '30 batches, merged by tens').to.equal(3);
      expect(segments.every((s) => s.level === 1)).to.equal(true);
      // Ten segments of ten documents make a small one: stored packed as well.
      expect(segments.every((s) => Number(s.postings) <= PACK_MAX_POSTINGS)).to.equal(true);
      for (const segment of segments) {
        expect((await storage.db.selectFrom('index_segment_postings').select('term_id').distinct().where('segment_id', '=', segment.id).execute())
          .map((r) => Number(r.term_id))).to.deep.equal([PACKED_TERM]);
      }
      expect(await storage.db.selectFrom('index_segments').select('id').where('mode', '=', mode).where('state', '!=', 'active').execute()).to.deep.equal([]);
      await statisticsAreConsistent(mode);
      await expectExhaustive(mode, corpus, 11, 10);

      // Two thirds deleted: the segments holding them are rewritten without their postings.
      expect(await index.deleteByUrls(mode, corpus.slice(0, 200).map((d) => d.url))).to.equal(200);
      await index.settle(mode);
      const remaining = await activeSegments(mode);
      expect(remaining).to.have.length(1);
      expect(Number(remaining[0]!.dead_postings)).to.equal(0);
      const livePostings = (await storage.db.selectFrom('index_passages as p').innerJoin('index_documents as d', 'd.id', 'p.document_id')
        .select('p.terms').where('d.mode', '=', mode).execute()).reduce((sum, p) => sum + decodeIdSet(p.terms).length, 0);
      expect(Number(remaining[0]!.postings)).to.equal(livePostings);
      await statisticsAreConsistent(mode);
      await expectExhaustive(mode, corpus.slice(200), 12, 10);
    } finally {
      await other.close();
      await emptyMode(mode, `merge-${RUN}.test`);
    }
  });

  it('merges a term whose postings lie in more blocks than one read of a merge takes', async () => {
    const mode = `w${RUN}` as Mode;
    // 1,001 passages 32,768 ids apart (as deletions and other modes can spread a mode's ids), one term in each:
    // 1,001 blocks of that term in one segment.
    await sql`INSERT INTO index_documents (mode, url, url_hash, domain, domain_reversed, fetched_at, content_hash, sim0, sim1, sim2, sim3, passage_count)
      VALUES (${mode}, ${`https://wide-${RUN}.test/`}, SHA2(${`https://wide-${RUN}.test/`}, 256), ${`wide-${RUN}.test`}, ${`test.wide-${RUN}.`}, NOW(), 'x', 0, 0, 0, 0, 1001)`.execute(storage.db);
    const documentId = Number((await storage.db.selectFrom('index_documents').select('id').where('mode', '=', mode).executeTakeFirstOrThrow()).id);
    const term = await storage.db.insertInto('index_terms').values({ mode, term: 'spread', df: 1001 }).executeTakeFirstOrThrow();
    const termId = Number(term.insertId);
    const base = Number((await sql<{ next: string }>`SELECT MAX(id) + 1 AS next FROM index_passages`.execute(storage.db)).rows[0]!.next);
    const ids = Array.from({ length: 1001 }, (_, b) => base + b * BLOCK_SPAN);
    try {
      await storage.db.insertInto('index_passages')
        .values(ids.map((id, position) => ({ id, document_id: documentId, position, length: 3, text: 'spread out', terms: Buffer.from(encodeIdSet([termId])) })))
        .execute();
      await storage.db.insertInto('index_stats').values({ mode, passages: 1001, total_length: 3003 }).execute();
      const segment = await createSegment(storage.db, mode, { level: 0, state: 'active', postings: 1001, firstPassage: base, lastPassage: ids[1000]! });
      await insertLists(storage.db, segment, [{ termId, chunks: encodeBlocks(ids, ids.map(() => 1), ids.map(() => 3), ids.length, base) }]);
      // Counted as mostly dead, so the merger rewrites it alone (and finds nothing to drop).
      await storage.db.updateTable('index_segments').set({ dead_postings: 600 }).where('id', '=', segment).execute();
      await index.settle(mode);
      const after = await activeSegments(mode);
      expect(after).to.have.length(1);
      expect(after[0]!.id).to.not.equal(segment);
      expect(Number(after[0]!.postings)).to.equal(1001);
      expect(Number(after[0]!.dead_postings)).to.equal(0);
      expect((await index.retrieve(mode, 'spread', { limit: 1000 })).length).to.equal(1000);
    } finally {
      await index.settle(mode);
      await storage.db.deleteFrom('index_passages').where('document_id', '=', documentId).execute();
      // Back to just above the highest id left, so repeated runs do not walk the id space 33 million at a time.
      await sql`ALTER TABLE index_passages AUTO_INCREMENT = 1`.execute(storage.db);
      for (const table of ['index_documents', 'index_terms', 'index_stats'] as const) await storage.db.deleteFrom(table).where('mode', '=', mode).execute();
      const left = await activeSegments(mode);
      for (const s of left) await storage.db.deleteFrom('index_segment_postings').where('segment_id', '=', Number(s.id)).execute();
      await storage.db.deleteFrom('index_segments').where('mode', '=', mode).execute();
    }
  });

  it('never reads a segment a stopped merge left half built, and removes it at the next merge', async () => {
    const url = `https://news.site-${RUN}.test/leftover`;
    await index.indexDocuments(MODE_A, [doc(url, 'Otters crack shellfish open with stones.')]);
    const passage = await storage.db.selectFrom('index_passages as p').innerJoin('index_documents as d', 'd.id', 'p.document_id')
      .select(['p.id', 'p.length']).where('d.url', '=', url).executeTakeFirstOrThrow();
    const [otter] = analyze('otters', 'en');
    const term = await storage.db.selectFrom('index_terms').select('id').where('mode', '=', MODE_A).where('term', '=', otter!).executeTakeFirstOrThrow();
    const before = await index.retrieve(MODE_A, 'otters', { limit: 10 });
    // What a merge killed half-way leaves: a building segment repeating the passage's posting.
    const leftover = await createSegment(storage.db, MODE_A, { level: 1, state: 'building', postings: 1, firstPassage: passage.id, lastPassage: passage.id });
    await insertLists(storage.db, leftover, [{ termId: term.id, chunks: [{ block: 0, data: encodePostings([passage.id], [50], [passage.length]) }] }]);
    expect(await index.retrieve(MODE_A, 'otters', { limit: 10 })).to.deep.equal(before);
    await index.settle(MODE_A);
    expect(await storage.db.selectFrom('index_segments').select('id').where('id', '=', leftover).execute()).to.deep.equal([]);
    expect(await storage.db.selectFrom('index_segment_postings').select('term_id').where('segment_id', '=', leftover).execute()).to.deep.equal([]);
  });

  it('writes a mode emptied by hand (terms and statistics deleted) again under its new term ids, not those it remembered', async () => {
    const mode = `w${RUN}` as Mode;
    try {
      await index.indexDocuments(mode, [doc(`https://wiped-${RUN}.test/1`, 'Otters float on their backs in kelp forests.')]);
      expect((await index.retrieve(mode, 'otters kelp', { limit: 5 })).map((h) => h.url)).to.deep.equal([`https://wiped-${RUN}.test/1`]);
      await emptyMode(mode, `wiped-${RUN}.test`);
      await index.indexDocuments(mode, [doc(`https://wiped-${RUN}.test/2`, 'Otters crack shells on stones in kelp beds.')]);
      expect((await index.retrieve(mode, 'otters kelp', { limit: 5 })).map((h) => h.url)).to.deep.equal([`https://wiped-${RUN}.test/2`]);
      await statisticsAreConsistent(mode);
    } finally {
      await emptyMode(mode, `wiped-${RUN}.test`);
    }
  });

  it('stores a small write\'s segment as one packed value and a large one\'s as a row per term, and reads and merges both alike', async () => {
    const mode = `k${RUN}` as Mode;
    const corpus = syntheticCorpus(590);
    const reading = new MysqlDocumentIndex(storage.db, pool, {}, { ...DEFAULT_TUNING, postingsCacheBytes: 0 });
    const formats = async () => {
      const segments = await storage.db.selectFrom('index_segments').select(['id', 'postings']).where('mode', '=', mode).where('state', '=', 'active').orderBy('id').execute();
      return Promise.all(segments.map(async (segment) => {
        const terms = await storage.db.selectFrom('index_segment_postings').select('term_id').distinct().where('segment_id', '=', segment.id).execute();
        const packed = terms.length === 1 && Number(terms[0]!.term_id) === PACKED_TERM;
        return { postings: Number(segment.postings), packed };
      }));
    };
    const sameAsExhaustive = async (seed: number) => {
      await expectExhaustive(mode, corpus, seed, 8);
      const query = 'w1 w2 w3';
      expect(await reading.retrieve(mode, query, { limit: 10 })).to.deep.equal(await index.retrieve(mode, query, { limit: 10 }));
    };
    try {
      await index.indexDocuments(mode, corpus.slice(0, 500));
      for (let i = 500; i < corpus.length; i += 10) await index.indexDocuments(mode, corpus.slice(i, i + 10));
      const before = await formats();
      expect(before).to.have.length(10);
      expect(before[0]!.postings).to.be.above(PACK_MAX_POSTINGS);
      expect(before.map((s) => s.packed)).to.deep.equal([false, true, true, true, true, true, true, true, true, true]);
      await statisticsAreConsistent(mode);
      await sameAsExhaustive(31);
      // Ten level-0 segments: merged into one, too large to pack.
      await index.settle(mode);
      expect(await formats()).to.deep.equal([{ postings: before.reduce((sum, s) => sum + s.postings, 0), packed: false }]);
      await statisticsAreConsistent(mode);
      await sameAsExhaustive(32);
    } finally {
      await reading.close();
      await emptyMode(mode, `exact-${RUN}.test`);
    }
  });

  it('returns exactly the exhaustive BM25 top 10, scored by one thread or split over both', async () => {
    const mode = `e${RUN}` as Mode;
    // Every query's segments split over the pool's two threads, however small.
    const splitting = new MysqlDocumentIndex(storage.db, pool, {}, { ...DEFAULT_TUNING, splitBytes: 0 });
    const corpus = syntheticCorpus(400);
    try {
      // Eight writes, eight segments (fewer than a merge takes), for the split to spread.
      for (let i = 0; i < corpus.length; i += 50) await index.indexDocuments(mode, corpus.slice(i, i + 50));
      expect(await activeSegments(mode)).to.have.length(8);
      await statisticsAreConsistent(mode);
      const random = prng(7);
      for (let q = 0; q < 25; q++) {
        const query = Array.from({ length: 2 + Math.floor(random() * 5) }, () => `w${Math.floor(400 * random() ** 2).toString(36)}`);
        const expected = exhaustiveTop(corpus, query.join(' '), 10);
        for (const reader of [index, splitting]) {
          const actual = await reader.retrieve(mode, query.join(' '), { limit: 10 });
          expect(actual.map((h) => [h.url, h.text]), query.join(' ')).to.deep.equal(expected.map((e) => [e.url, e.text]));
          actual.forEach((hit, i) => expect(hit.score).to.be.closeTo(expected[i]!.score, 1e-9));
        }
      }
    } finally {
      await emptyMode(mode, `exact-${RUN}.test`);
    }
  });
});
