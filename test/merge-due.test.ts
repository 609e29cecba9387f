import { expect } from 'chai';
import { createPool } from 'mysql2';
import { Kysely, MysqlDialect } from 'kysely';
import type { Mode } from '../src/mode.js';
import { createCpuPool, type CpuPool } from '../src/pool/pool.js';
import { encodeBlocks } from '../src/index/postings-codec.js';
import { SegmentMerger } from '../src/index/segment-merger.js';
import { createSegment, dropSegments, insertLists } from '../src/index/segments.repository.js';
import { connectionOptions, openStorage, type Storage } from '../src/storage/connection.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import type { Database } from '../src/storage/schema.js';

describe('merge requests', function () {
  this.timeout(30_000);
  const DATABASE_URL = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
  const mode = `m${Math.random().toString(36).slice(2, 8)}` as Mode;
  let storage: Storage;
  let db: Kysely<Database>;
  let pool: CpuPool;
  const statements: string[] = [];

  before(async () => {
    storage = openStorage(DATABASE_URL, 2);
    await migrateToLatest(storage.db);
    pool = createCpuPool({ threads: 1, taskTimeoutMs: 30_000 });
    db = new Kysely<Database>({
      dialect: new MysqlDialect({ pool: createPool({ ...connectionOptions(DATABASE_URL), connectionLimit: 4, timezone: 'Z' }) }),
      log: (event) => {
        if (event.level === 'query') statements.push(event.query.sql);
      },
    });
  });
  after(async () => {
    const ids = (await storage.db.selectFrom('index_segments').select('id').where('mode', '=', mode).execute()).map((r) => Number(r.id));
    await dropSegments(storage.db, ids);
    await db.destroy();
    await pool.close();
    await storage.close();
  });

  /** An active level-0 segment of one posting (passage `passage`, term 1). */
  async function segment(passage: number): Promise<void> {
    const id = await createSegment(storage.db, mode, { level: 0, state: 'active', postings: 1, firstPassage: passage, lastPassage: passage });
    await insertLists(storage.db, id, [{ termId: 1, chunks: encodeBlocks([passage], [1], [5], 1, passage) }]);
  }

  it('read the segments once and take no lock while nothing is due; merge once ten segments of a level are there', async () => {
    const merger = new SegmentMerger(db, pool);
    for (let n = 1; n <= 9; n++) await segment(n);
    statements.length = 0;
    await merger.settle(mode);
    expect(statements).to.have.length(1);
    expect(statements[0]).to.match(/^select .* from `index_segments`/i);
    await segment(10);
    statements.length = 0;
    await merger.settle(mode);
    expect(statements.some((s) => /GET_LOCK/.test(s))).to.equal(true);
    const active = await storage.db.selectFrom('index_segments').select(['level', 'postings']).where('mode', '=', mode).where('state', '=', 'active').execute();
    // Nothing is live in the index for these passages, so the merge drops their postings and leaves no segment.
    expect(active.filter((s) => s.level === 0)).to.deep.equal([]);
    await merger.close();
  });
});
