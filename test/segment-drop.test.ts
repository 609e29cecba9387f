import { expect } from 'chai';
import type { Mode } from '../src/mode.js';
import { createSegment, dropSegments, insertLists } from '../src/index/segments.repository.js';
import { encodeBlocks } from '../src/index/postings-codec.js';
import { openStorage, type Storage } from '../src/storage/connection.js';
import { migrateToLatest } from '../src/storage/migrate.js';

describe('dropping segments', function () {
  this.timeout(30_000);
  const DATABASE_URL = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
  const mode = `s${Math.random().toString(36).slice(2, 8)}` as Mode;
  let storage: Storage;

  before(async () => {
    storage = openStorage(DATABASE_URL, 2);
    await migrateToLatest(storage.db);
  });
  after(async () => {
    const ids = (await storage.db.selectFrom('index_segments').select('id').where('mode', '=', mode).execute()).map((r) => Number(r.id));
    await dropSegments(storage.db, ids);
    await storage.close();
  });

  async function segmentWith(terms: number): Promise<number> {
    const id = await createSegment(storage.db, mode, { level: 0, state: 'retired', postings: terms, firstPassage: 1, lastPassage: 1 });
    await insertLists(storage.db, id, Array.from({ length: terms }, (_v, t) => ({ termId: t + 1, chunks: encodeBlocks([1], [1], [5], 1, 1) })));
    return id;
  }

  it('removes the postings and rows of every segment given, in slices, and nothing else', async () => {
    // More postings rows than one DELETE slice (5,000) across the segments dropped.
    const dropped = [await segmentWith(3000), await segmentWith(2500), await segmentWith(10)];
    const kept = await segmentWith(20);
    await dropSegments(storage.db, dropped);
    const segments = await storage.db.selectFrom('index_segments').select('id').where('mode', '=', mode).execute();
    expect(segments.map((s) => Number(s.id))).to.deep.equal([kept]);
    const rows = await storage.db.selectFrom('index_segment_postings').select(['segment_id']).where('segment_id', 'in', [...dropped, kept]).execute();
    expect(rows).to.have.length(20);
    expect(new Set(rows.map((r) => Number(r.segment_id)))).to.deep.equal(new Set([kept]));
    await dropSegments(storage.db, []);
  });
});
