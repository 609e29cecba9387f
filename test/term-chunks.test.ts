import { expect } from 'chai';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, UnknownRow } from 'kysely';
import type { Mode } from '../src/mode.js';
import { createSegment, dropSegments, insertLists, readTermChunks } from '../src/index/segments.repository.js';
import { decodePostings, encodeBlocks } from '../src/index/postings-codec.js';
import { PostingsCache } from '../src/index/postings-cache.js';
import { openStorage, type Storage } from '../src/storage/connection.js';
import { migrateToLatest } from '../src/storage/migrate.js';

/** Runs `between` once, right after the first read of the segment list returns: a merge landing mid-query. */
class AfterSegmentList implements KyselyPlugin {
  private done = false;
  constructor(private readonly between: () => Promise<void>) {}
  transformQuery(args: PluginTransformQueryArgs) {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const first = args.result.rows[0];
    if (!this.done && first && 'first_passage' in first && 'created_at' in first) {
      this.done = true;
      await this.between();
    }
    return args.result;
  }
}

describe('reading the postings of a query', function () {
  this.timeout(30_000);
  const DATABASE_URL = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
  const mode = `c${Math.random().toString(36).slice(2, 8)}` as Mode;
  let storage: Storage;

  before(async () => {
    storage = openStorage(DATABASE_URL, 4);
    await migrateToLatest(storage.db);
  });
  after(async () => {
    const ids = (await storage.db.selectFrom('index_segments').select('id').where('mode', '=', mode).execute()).map((r) => Number(r.id));
    await dropSegments(storage.db, ids);
    await storage.close();
  });

  /** A segment of passages `from`..`to`, each holding term 1 once. */
  async function segment(from: number, to: number, state: 'active' | 'building' = 'active'): Promise<number> {
    const passages = Array.from({ length: to - from + 1 }, (_v, i) => from + i);
    const id = await createSegment(storage.db, mode, { level: 0, state, postings: passages.length, firstPassage: from, lastPassage: to });
    await insertLists(storage.db, id, [{ termId: 1, chunks: encodeBlocks(passages, passages.map(() => 1), passages.map(() => 5), passages.length, from) }]);
    return id;
  }

  const passagesOf = (chunks: { data: Uint8Array }[]) => chunks.flatMap((c) => [...decodePostings(c.data).passages]).sort((a, b) => a - b);

  it('sees every passage when a merge retires the segments it listed and drops their postings before it reads them', async () => {
    const first = await segment(1, 3);
    const second = await segment(4, 6);
    // The merge: its segment written while building, then swapped in and the old postings dropped.
    const merged = await segment(1, 6, 'building');
    const merging = storage.db.withPlugin(new AfterSegmentList(async () => {
      await storage.db.transaction().execute(async (trx) => {
        await trx.updateTable('index_segments').set({ state: 'active' }).where('id', '=', merged).execute();
        await trx.updateTable('index_segments').set({ state: 'retired' }).where('id', 'in', [first, second]).execute();
      });
      await dropSegments(storage.db, [first, second]);
    }));
    const cache = new PostingsCache(2 ** 20);
    const chunks = await readTermChunks(merging, cache, mode, [1]);
    expect(passagesOf(chunks)).to.deep.equal([1, 2, 3, 4, 5, 6]);
    expect(new Set(chunks.map((c) => c.segmentId))).to.deep.equal(new Set([merged]));
    // The next query, with no merge in between, finds the same passages (from the merged segment's list it remembered).
    expect(passagesOf(await readTermChunks(storage.db, cache, mode, [1]))).to.deep.equal([1, 2, 3, 4, 5, 6]);
  });
});
