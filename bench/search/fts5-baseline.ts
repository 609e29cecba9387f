/**
 * Plain BM25 as a reference beside the service's ranking: SQLite FTS5 (better-sqlite3, a
 * devDependency; it compiles the SQLite amalgamation it ships when no prebuilt binary can be
 * fetched) with the Porter stemmer over Unicode 6.1 word tokens, `tokenize='porter unicode61'`,
 * ranked by FTS5's bm25() (k1 1.2, b 0.75; title and text are two columns of weight 1, which
 * bm25() counts as one text). No stop words: FTS5 has none.
 *
 * A query becomes the OR of its distinct words, each quoted (so "not", "near" or a hyphen are
 * words, not operators): what anyone would write to search a collection with FTS5.
 */
import Database from 'better-sqlite3';

export interface Fts5Document {
  /** What search() returns for the document. */
  key: string;
  /** Lets a search be restricted to one group (a collection) while keeping the statistics of all. */
  group: string;
  title: string;
  text: string;
}

export class Fts5Bm25 {
  private readonly db: Database.Database;
  private readonly all: Database.Statement<[string, number], { key: string }>;
  private readonly inGroup: Database.Statement<[string, string, number], { key: string }>;

  constructor(documents: Iterable<Fts5Document>) {
    this.db = new Database(':memory:');
    this.db.exec("CREATE VIRTUAL TABLE docs USING fts5(key UNINDEXED, grp UNINDEXED, title, body, tokenize='porter unicode61')");
    const insert = this.db.prepare('INSERT INTO docs (key, grp, title, body) VALUES (?, ?, ?, ?)');
    this.db.transaction(() => {
      for (const d of documents) insert.run(d.key, d.group, d.title, d.text);
    })();
    this.all = this.db.prepare('SELECT key FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?');
    this.inGroup = this.db.prepare('SELECT key FROM docs WHERE docs MATCH ? AND grp = ? ORDER BY bm25(docs) LIMIT ?');
  }

  /** The keys of the best `k` documents for the query (fewer when fewer match), best first; only `group`'s when given. */
  search(query: string, k: number, group?: string): string[] {
    const expression = matchExpression(query);
    if (!expression) return [];
    const rows = group === undefined ? this.all.all(expression, k) : this.inGroup.all(expression, group, k);
    return rows.map((r) => r.key);
  }

  close(): void {
    this.db.close();
  }
}

/** The OR of the query's distinct words, each a quoted FTS5 string; '' for a query without words. */
export function matchExpression(query: string): string {
  const words = new Set((query.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []));
  return [...words].map((w) => `"${w}"`).join(' OR ');
}
