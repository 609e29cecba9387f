import { expect } from 'chai';
import { createPool } from 'mysql2';
import { Kysely, MysqlDialect } from 'kysely';
import { ExtractionRows } from '../src/extract/extraction-rows.js';
import type { StoredExtraction } from '../src/extract/extraction.repository.js';
import { connectionOptions, openStorage, type Storage } from '../src/storage/connection.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import type { Database } from '../src/storage/schema.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
const RUN = Math.random().toString(36).slice(2, 8);

function row(n: number, extra: Partial<StoredExtraction> = {}): StoredExtraction {
  const url = `https://rows-${RUN}.test/${n}`;
  return {
    requestId: `rows-${RUN}-${n}`, url, urlHash: `${RUN}${String(n).padStart(58, '0')}`, finalUrl: url, canonicalUrl: null, domain: `rows-${RUN}.test`,
    title: `Page ${n}`, author: null, publishedAt: null, language: 'en', siteName: null, description: null, contentText: `Text of page ${n}.`,
    contentHash: 'c'.repeat(64), wordCount: 4, blocksJson: '[]', qualityScore: 0.5, cleanHtml: true, scope: null, otherLinksJson: null,
    mode: 'test', fetchedAt: new Date(), pageCount: null, modifiedAt: null, ...extra,
  };
}

describe('extraction rows written in groups', function () {
  this.timeout(30_000);
  let storage: Storage;
  let db: Kysely<Database>;
  const inserts: number[] = [];

  before(async () => {
    storage = openStorage(DATABASE_URL, 2);
    await migrateToLatest(storage.db);
    db = new Kysely<Database>({
      dialect: new MysqlDialect({ pool: createPool({ ...connectionOptions(DATABASE_URL), connectionLimit: 4, timezone: 'Z' }) }),
      log: (event) => {
        if (event.level === 'query' && /^insert into `extractions`/i.test(event.query.sql)) inserts.push(event.query.parameters.length);
      },
    });
  });
  after(async () => {
    await storage.db.deleteFrom('extractions').where('domain', '=', `rows-${RUN}.test`).execute();
    await db.destroy();
    await storage.close();
  });

  it('writes rows that arrive while a write is under way in one statement, each caller answered once its row is committed', async () => {
    const rows = new ExtractionRows(db);
    inserts.length = 0;
    await Promise.all(Array.from({ length: 6 }, (_v, n) => rows.insert(row(n)).then(async () => {
      const stored = await storage.db.selectFrom('extractions').select('request_id').where('request_id', '=', `rows-${RUN}-${n}`).execute();
      expect(stored, `row ${n} committed when its insert resolves`).to.have.length(1);
    })));
    // The first goes alone; the five that arrived meanwhile go together.
    expect(inserts.length).to.be.below(6);
    const stored = await storage.db.selectFrom('extractions').select('request_id').where('domain', '=', `rows-${RUN}.test`).execute();
    expect(stored.map((r) => r.request_id).sort()).to.deep.equal(Array.from({ length: 6 }, (_v, n) => `rows-${RUN}-${n}`).sort());
  });

  it('fails only the row at fault when a group cannot be written', async () => {
    const rows = new ExtractionRows(db);
    const outcomes = await Promise.allSettled([10, 11, 12, 13].map((n) => rows.insert(row(n, n === 12 ? { requestId: 'x'.repeat(200) } : {}))));
    expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const stored = await storage.db.selectFrom('extractions').select('url').where('url', 'in', [10, 11, 12, 13].map((n) => `https://rows-${RUN}.test/${n}`)).execute();
    expect(stored.map((r) => r.url).sort()).to.deep.equal([10, 11, 13].map((n) => `https://rows-${RUN}.test/${n}`).sort());
  });

  it('writes a row too large to share a statement on its own', async () => {
    const rows = new ExtractionRows(db);
    inserts.length = 0;
    await Promise.all([rows.insert(row(20)), rows.insert(row(21, { contentText: 'x'.repeat(1_100_000) })), rows.insert(row(22))]);
    const stored = await storage.db.selectFrom('extractions').select('url').where('url', 'in', [20, 21, 22].map((n) => `https://rows-${RUN}.test/${n}`)).execute();
    expect(stored).to.have.length(3);
    expect(inserts.length).to.be.at.least(2);
  });
});
