import type { Kysely } from 'kysely';
import type { Mode } from '../mode.js';
import type { CpuPool } from '../pool/pool.js';
import type { Database } from '../storage/schema.js';
import { deleteDomain, deleteUrls } from './deletion.repository.js';
import { queryWeights, weighQuery } from './query-weights.js';
import { searchStageDone } from '../metrics/search-stages.js';
import { DEFAULT_TUNING, retrievePassages, type ScoringTuning } from './retriever.js';
import { withDeadlockRetry } from '../storage/deadlock-retry.js';
import { sha256Hex } from '../storage/hash.js';
import { GroupedWrites } from './grouped-writes.js';
import { KnownTermIds } from './known-term-ids.js';
import type { PreparedDocument } from './prepare-documents.js';
import { SegmentMerger, type MergerOptions } from './segment-merger.js';
import { PostingsCache } from './postings-cache.js';
import { writeBatch } from './writer.repository.js';
import type { DocumentIndex, IndexDocumentInput, IndexOutcome, QueryWeights, RetrievedPassage, RetrieveOptions } from './types.js';

/** Documents analysed and written per transaction: bounds lock time and statement size. */
const BATCH = 500;
/**
 * Writers and deleters of a mode take turns on its statistics row, but the first ones of a new
 * mode race to create that row (InnoDB may then pick one as a deadlock victim: retried), and
 * two may add the same new URL at once, so one hits the unique key: a second run finds the URL
 * indexed.
 */
const NEW_URL_RACE = ['ER_DUP_ENTRY'];

/**
 * The index in MySQL (migrations 20261121T2330 and 20261122T0100): documents, passages and term
 * statistics in rows, postings in segments that a background merger keeps few; text work,
 * scoring and merging in the CPU pool.
 */
export class MysqlDocumentIndex implements DocumentIndex {
  private readonly merger: SegmentMerger;
  /** Documents analysed in the pool, waiting for their turn to be written. */
  private readonly writes: GroupedWrites<{ input: IndexDocumentInput; prepared: PreparedDocument }, IndexOutcome>;
  private readonly postings: PostingsCache;
  /** Term ids this process has met: a write looks up only the others. */
  private readonly terms = new KnownTermIds();

  constructor(
    private readonly db: Kysely<Database>, private readonly pool: CpuPool, merges: MergerOptions = {}, private readonly tuning: ScoringTuning = DEFAULT_TUNING,
  ) {
    this.merger = new SegmentMerger(db, pool, merges);
    this.writes = new GroupedWrites(async (mode, documents) => {
      const outcomes = await withDeadlockRetry(() => writeBatch(db, mode, documents.map((d) => d.input), documents.map((d) => d.prepared), this.terms), NEW_URL_RACE);
      this.merger.request(mode);
      return outcomes;
    }, BATCH);
    this.postings = new PostingsCache(tuning.postingsCacheBytes);
  }

  /** Picks up merges a stopped process left to do (call once when a writing process starts). */
  async resumeMerges(): Promise<void> {
    const modes = await this.db.selectFrom('index_segments').select('mode').distinct().execute();
    for (const { mode } of modes) this.merger.request(mode as Mode);
  }

  /** Resolves when the mode's segments are merged as far as the policy goes. */
  settle(mode: Mode): Promise<void> {
    return this.merger.settle(mode);
  }

  close(): Promise<void> {
    return this.merger.close();
  }

  async indexDocuments(mode: Mode, documents: readonly IndexDocumentInput[]): Promise<IndexOutcome[]> {
    const outcomes: IndexOutcome[] = [];
    for (let start = 0; start < documents.length; start += BATCH) {
      const batch = documents.slice(start, start + BATCH);
      const unprepared = batch.filter((d) => !d.prepared);
      const analysed = unprepared.length === 0 ? [] : await this.pool.run('prepareDocuments', {
        documents: unprepared.map((d) => ({ title: d.title, text: d.text, language: d.language })),
      });
      let next = 0;
      const prepared = batch.map((d) => d.prepared ?? analysed[next++]!);
      outcomes.push(...await this.writes.add(mode, batch.map((input, n) => ({ input, prepared: prepared[n]! }))));
    }
    return outcomes;
  }

  async deleteByUrls(mode: Mode, urls: readonly string[]): Promise<number> {
    const hashes = urls.map(sha256Hex);
    const deleted = await withDeadlockRetry(() => deleteUrls(this.db, mode, hashes));
    this.merger.request(mode);
    return deleted;
  }

  async deleteByDomain(mode: Mode, domain: string): Promise<number> {
    const deleted = await withDeadlockRetry(() => deleteDomain(this.db, mode, domain));
    this.merger.request(mode);
    return deleted;
  }

  async retrieve(mode: Mode, query: string, options: RetrieveOptions): Promise<RetrievedPassage[]> {
    return (await this.retrieveWeighed(mode, query, options)).passages;
  }

  async queryWeights(mode: Mode, query: string, language?: string): Promise<QueryWeights> {
    return queryWeights(await weighQuery(this.db, mode, query, language));
  }

  async retrieveWeighed(mode: Mode, query: string, options: RetrieveOptions): Promise<{ weights: QueryWeights; passages: RetrievedPassage[] }> {
    const weighed = await weighQuery(this.db, mode, query, options.language);
    searchStageDone('weigh query');
    return { weights: queryWeights(weighed), passages: await retrievePassages(this.db, this.pool, this.postings, mode, weighed, options, this.tuning) };
  }
}
