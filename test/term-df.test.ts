import { expect } from 'chai';
import type { Mode } from '../src/mode.js';
import { addTerms, adjustDf } from '../src/index/terms.repository.js';
import { KnownTermIds } from '../src/index/known-term-ids.js';
import { openStorage, type Storage } from '../src/storage/connection.js';
import { migrateToLatest } from '../src/storage/migrate.js';

describe('term document frequencies', function () {
  this.timeout(30_000);
  const DATABASE_URL = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
  const mode = `d${Math.random().toString(36).slice(2, 8)}` as Mode;
  let storage: Storage;

  before(async () => {
    storage = openStorage(DATABASE_URL, 2);
    await migrateToLatest(storage.db);
  });
  after(async () => {
    await storage.db.deleteFrom('index_terms').where('mode', '=', mode).execute();
    await storage.close();
  });

  async function dfs(): Promise<Record<string, number>> {
    const rows = await storage.db.selectFrom('index_terms').select(['term', 'df']).where('mode', '=', mode).execute();
    return Object.fromEntries(rows.map((r) => [r.term, Number(r.df)]));
  }

  it('adds each term its own change in one statement, whatever mix of changes the terms have', async () => {
    // Passages' terms: "common" in all five, "pair" in two, the rest in one.
    const passages = [['common', 'pair', 'a'], ['common', 'pair', 'b'], ['common', 'c'], ['common', 'd'], ['common', 'e']];
    const { ids } = await storage.db.transaction().execute((trx) => addTerms(trx, mode, passages));
    expect(await dfs()).to.deep.equal({ common: 5, pair: 2, a: 1, b: 1, c: 1, d: 1, e: 1 });
    // New terms' ids are those of their rows (counted from the INSERT's first id, not read back).
    const stored = await storage.db.selectFrom('index_terms').select(['id', 'term']).where('mode', '=', mode).execute();
    expect(new Map(stored.map((r) => [r.term, Number(r.id)]))).to.deep.equal(ids);
    const { ids: again } = await storage.db.transaction().execute((trx) => addTerms(trx, mode, [['common', 'fresh']]));
    expect(again.get('common')).to.equal(ids.get('common'));
    expect(again.get('fresh')).to.equal(Number((await storage.db.selectFrom('index_terms').select('id').where('mode', '=', mode).where('term', '=', 'fresh').executeTakeFirstOrThrow()).id));
    await storage.db.transaction().execute((trx) => adjustDf(trx, new Map([[again.get('common')!, -1], [again.get('fresh')!, -1]])));
    await storage.db.deleteFrom('index_terms').where('mode', '=', mode).where('term', '=', 'fresh').execute();
    await storage.db.transaction().execute((trx) => addTerms(trx, mode, passages));
    expect(await dfs()).to.deep.equal({ common: 10, pair: 4, a: 2, b: 2, c: 2, d: 2, e: 2 });
    // Deletions lower df: changes of either sign in one go, the most common one (-1) for the rest.
    const changes = new Map([[ids.get('common')!, -7], [ids.get('pair')!, 3], [ids.get('a')!, -1], [ids.get('b')!, -1], [ids.get('c')!, -2]]);
    await storage.db.transaction().execute((trx) => adjustDf(trx, changes));
    expect(await dfs()).to.deep.equal({ common: 3, pair: 7, a: 1, b: 1, c: 0, d: 2, e: 2 });
    await storage.db.transaction().execute((trx) => adjustDf(trx, new Map()));
    expect((await dfs()).common).to.equal(3);
  });

  it('looks up only the terms it does not know, keeps those it read, and answers those it added for the caller to keep once committed', async () => {
    const known = new KnownTermIds();
    const { ids: existing } = await storage.db.transaction().execute((trx) => addTerms(trx, mode, [['common', 'pair']]));
    const first = await storage.db.transaction().execute((trx) => addTerms(trx, mode, [['common', 'novel']], known));
    expect(known.get(mode, 'common'), 'read from the table').to.equal(existing.get('common'));
    expect([...first.fresh.keys()]).to.deep.equal(['novel']);
    expect(known.get(mode, 'novel'), 'added: the caller keeps it once its transaction committed').to.equal(undefined);
    // A term it knows is not looked up: the id it holds is the one used.
    known.remember(mode, [['pair', 999_999_999]]);
    const second = await storage.db.transaction().execute((trx) => addTerms(trx, mode, [['pair']], known));
    expect(second.ids.get('pair')).to.equal(999_999_999);
    expect(known.get(`x${mode}`, 'common'), 'another mode').to.equal(undefined);
    const bounded = new KnownTermIds(2);
    bounded.remember(mode, [['a', 1], ['b', 2], ['c', 3]]);
    expect(['a', 'b', 'c'].map((t) => bounded.get(mode, t))).to.deep.equal([undefined, 2, 3]);
  });
});
