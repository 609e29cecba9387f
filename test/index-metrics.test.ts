import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Mode } from '../src/mode.js';
import { MysqlDocumentIndex } from '../src/index/mysql-document-index.js';
import { createSegment, dropSegment, insertLists, segmentStats } from '../src/index/segments.repository.js';
import type { IndexDocumentInput } from '../src/index/types.js';
import { createMetrics, indexMergeObserver, type Metrics } from '../src/metrics/metrics.js';
import { createCpuPool, type CpuPool } from '../src/pool/pool.js';
import { openStorage, type Storage } from '../src/storage/connection.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { decodeIdSet, encodePostings } from '../src/index/postings-codec.js';
import { createAccount, createKey, writePlansFile } from './helpers/accounts.js';
import { call, startTestService, type TestService } from './helpers/service.js';
import { eventually } from './helpers/wait.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';

interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** The samples of one metric in Prometheus text format. */
function samples(text: string, name: string): Sample[] {
  const found: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    found.push({ labels, value: Number(match[3]) });
  }
  return found;
}

/** One mode's segments by level and postings by kind, as /metrics shows them. */
function indexFigures(text: string, mode: string): { segments: Record<string, number>; postings: Record<string, number> } {
  const ofMode = (name: string, key: string) => Object.fromEntries(
    samples(text, name).filter((s) => s.labels.mode === mode).map((s) => [s.labels[key]!, s.value]),
  );
  return { segments: ofMode('sev_index_segments', 'level'), postings: ofMode('sev_index_postings', 'kind') };
}

/** The same figures read straight from the table, without segmentStats. */
async function tableFigures(storage: Storage, mode: string): Promise<{ segments: Record<string, number>; postings: Record<string, number> }> {
  const rows = await storage.db.selectFrom('index_segments').select(['level', 'postings', 'dead_postings'])
    .where('mode', '=', mode).where('state', '=', 'active').execute();
  if (rows.length === 0) return { segments: {}, postings: {} };
  const segments: Record<string, number> = {};
  for (const row of rows) segments[String(row.level)] = (segments[String(row.level)] ?? 0) + 1;
  const dead = rows.reduce((sum, r) => sum + Number(r.dead_postings), 0);
  return { segments, postings: { live: rows.reduce((sum, r) => sum + Number(r.postings), 0) - dead, dead } };
}

function doc(url: string, text: string): IndexDocumentInput {
  return { url, title: null, text, language: 'en', author: null, publishedAt: null, fetchedAt: new Date(), countryHint: null, authority: null };
}

/** A sentence of words no other document or run has: no document is a near-duplicate of another. */
const uniqueText = () => `${Array.from({ length: 12 }, () => `w${randomUUID().slice(0, 8)}`).join(' ')}.`;

describe('search index metrics', function () {
  this.timeout(120_000);

  describe('from the index and its merger', () => {
    const RUN = Math.random().toString(36).slice(2, 8);
    let storage: Storage;
    let pool: CpuPool;
    let metrics: Metrics;
    let index: MysqlDocumentIndex;

    before(async () => {
      storage = openStorage(DATABASE_URL, 4);
      await migrateToLatest(storage.db);
      pool = createCpuPool({ threads: 2, taskTimeoutMs: 30_000 });
      metrics = createMetrics('worker', { indexSegments: () => segmentStats(storage.db) });
      index = new MysqlDocumentIndex(storage.db, pool, { observer: indexMergeObserver(metrics) });
    });
    after(async () => {
      await index.close();
      await pool.close();
      await storage.close();
    });

    it('shows active segments by level, live and dead postings, and each completed merge', async () => {
      // A mode of this run only (the column takes any short name), so its figures are exactly its own.
      const mode = `x${RUN}` as Mode;
      const urls = Array.from({ length: 10 }, (_, i) => `https://metrics-${RUN}.test/${i}`);
      try {
        let text = await metrics.registry.metrics();
        expect(samples(text, 'sev_index_merges_total').map((s) => [s.labels.outcome, s.value])).to.deep.equal([['completed', 0], ['failed', 0]]);
        expect(indexFigures(text, mode)).to.deep.equal({ segments: {}, postings: {} });

        await index.indexDocuments(mode, [doc(urls[0]!, uniqueText())]);
        await index.settle(mode);
        text = await metrics.registry.metrics();
        expect(indexFigures(text, mode)).to.deep.equal(await tableFigures(storage, mode));
        expect(indexFigures(text, mode).segments).to.deep.equal({ 0: 1 });

        // Ten one-document batches are ten level-0 segments: exactly one merge folds them into a level-1 segment.
        for (const url of urls.slice(1)) await index.indexDocuments(mode, [doc(url, uniqueText())]);
        await index.settle(mode);
        text = await metrics.registry.metrics();
        const postings = (await storage.db.selectFrom('index_passages as p').innerJoin('index_documents as d', 'd.id', 'p.document_id')
          .select('p.terms').where('d.mode', '=', mode).execute()).reduce((sum, p) => sum + decodeIdSet(p.terms).length, 0);
        expect(indexFigures(text, mode)).to.deep.equal({ segments: { 1: 1 }, postings: { live: postings, dead: 0 } });
        expect(samples(text, 'sev_index_merges_total').find((s) => s.labels.outcome === 'completed')?.value).to.equal(1);
        expect(samples(text, 'sev_index_merge_duration_seconds_count')[0]?.value).to.equal(1);
        expect(samples(text, 'sev_index_merge_duration_seconds_sum')[0]?.value).to.be.above(0);

        // One document of ten deleted: its postings count as dead until a merge drops them (10% dead is below the rewrite threshold).
        await index.deleteByUrls(mode, [urls[0]!]);
        await index.settle(mode);
        const left = (await storage.db.selectFrom('index_passages as p').innerJoin('index_documents as d', 'd.id', 'p.document_id')
          .select('p.terms').where('d.mode', '=', mode).execute()).reduce((sum, p) => sum + decodeIdSet(p.terms).length, 0);
        text = await metrics.registry.metrics();
        expect(indexFigures(text, mode)).to.deep.equal({ segments: { 1: 1 }, postings: { live: left, dead: postings - left } });
        expect(samples(text, 'sev_index_merges_total').find((s) => s.labels.outcome === 'completed')?.value).to.equal(1);
      } finally {
        await index.deleteByDomain(mode, `metrics-${RUN}.test`);
        await index.settle(mode);
        await storage.db.deleteFrom('index_terms').where('mode', '=', mode).execute();
        await storage.db.deleteFrom('index_stats').where('mode', '=', mode).execute();
      }
    });

    it('counts a merge that throws as failed and passes the error on', async () => {
      const mode = `f${RUN}` as Mode;
      const errors: unknown[] = [];
      // Every pool task fails, as when the pool's threads keep dying.
      const brokenPool = { run: () => Promise.reject(new Error('pool unavailable')) } as unknown as CpuPool;
      const broken = new MysqlDocumentIndex(storage.db, brokenPool, { observer: indexMergeObserver(metrics), onError: (error) => errors.push(error) });
      const failedBefore = samples(await metrics.registry.metrics(), 'sev_index_merges_total').find((s) => s.labels.outcome === 'failed')!.value;
      try {
        // Ten level-0 segments with a posting each: the merge reaches the pool, and fails there.
        for (let i = 1; i <= 10; i++) {
          const segment = await createSegment(storage.db, mode, { level: 0, state: 'active', postings: 1, firstPassage: i, lastPassage: i });
          await insertLists(storage.db, segment, [{ termId: 1, chunks: [{ block: 0, data: encodePostings([i], [1], [10]) }] }]);
        }
        await broken.settle(mode);
        const text = await metrics.registry.metrics();
        expect(samples(text, 'sev_index_merges_total').find((s) => s.labels.outcome === 'failed')?.value).to.equal(failedBefore + 1);
        expect(errors.map((e) => (e as Error).message)).to.deep.equal(['pool unavailable']);
      } finally {
        await broken.close();
        for (const { id } of await storage.db.selectFrom('index_segments').select('id').where('mode', '=', mode).execute()) await dropSegment(storage.db, id);
      }
    });
  });

  describe('GET /metrics of a running service', () => {
    let service: TestService;
    let storage: Storage;
    const host = `${randomUUID()}.example`;
    let key: string;

    before(async () => {
      service = await startTestService({ PLANS_FILE: writePlansFile() });
      storage = openStorage(service.config.databaseUrl, 2);
      // The sandbox mode: other suites index mostly live documents, so its merges are this test's to run.
      key = (await createKey(service.url, { account_id: await createAccount(service.url, 'pro'), mode: 'test' })).key;
    });
    after(async () => {
      await call(service.url, '/v1/index/documents', { method: 'DELETE', body: { domain: host }, key });
      await service.close();
      await storage.close();
    });

    const scrape = async () => (await fetch(`${service.url}/metrics`)).text();
    const completedMerges = (text: string) =>
      samples(text, 'sev_index_merges_total').find((s) => s.labels.outcome === 'completed' && s.labels.role === 'all')?.value;

    it('shows the mode\'s segments and postings as MySQL holds them, and merges after ten writes', async () => {
      const before = completedMerges(await scrape());
      expect(before).to.be.a('number');
      // Every write adds a level-0 segment; the tenth at that level at the latest sets off a merge.
      for (let i = 0; i < 11; i++) {
        const response = await call(service.url, '/v1/index/documents', { body: { documents: [{ url: `https://${host}/${i}`, title: `Page ${i}`, content: uniqueText() }] }, key });
        expect(response.status, JSON.stringify(response.json)).to.equal(200);
        expect(response.json.data.counts.indexed).to.equal(1);
      }
      const text = await eventually(async () => {
        const current = await scrape();
        return completedMerges(current)! > before! ? current : undefined;
      }, 30_000);
      expect(samples(text, 'sev_index_merge_duration_seconds_count').find((s) => s.labels.role === 'all')?.value).to.be.above(0);

      // Other processes may write or merge meanwhile: compare a scrape with the table when the table did not change around it.
      for (let attempt = 1; ; attempt++) {
        const tableBefore = await tableFigures(storage, 'test');
        const scraped = indexFigures(await scrape(), 'test');
        const tableAfter = await tableFigures(storage, 'test');
        if (JSON.stringify(tableBefore) === JSON.stringify(tableAfter)) {
          expect(scraped).to.deep.equal(tableAfter);
          expect(scraped.postings.live).to.be.above(0);
          break;
        }
        if (attempt === 10) throw new Error('the index kept changing under the scrape');
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    });
  });
});
