import { sql, type Transaction } from 'kysely';
import type { Mode } from '../mode.js';
import type { Database } from '../storage/schema.js';
import { literalList, multiRowInsert } from '../storage/multi-row-insert.js';

/** Terms per statement: a few hundred KB of parameters at most. */
const TERMS_PER_STATEMENT = 4000;

/**
 * Ids of a batch's terms, adding the new ones, and each term's df raised by the passages of the
 * batch that contain it. Known terms are found by one indexed read and changed by primary key,
 * which measured several times faster than INSERT … ON DUPLICATE KEY UPDATE over the whole
 * vocabulary of a batch. Callers hold the mode's writer turn, so no other writer adds terms of
 * this mode meanwhile. The statements carry thousands of values, written as literals
 * (multi-row-insert.ts): a query tree of as many nodes cost more than the database's work.
 */
export async function addTerms(trx: Transaction<Database>, mode: Mode, passageTerms: readonly string[][]): Promise<Map<string, number>> {
  const df = new Map<string, number>();
  for (const terms of passageTerms) for (const term of terms) df.set(term, (df.get(term) ?? 0) + 1);
  const ids = await findIds(trx, mode, [...df.keys()]);
  const fresh = [...df.entries()].filter(([term]) => !ids.has(term));
  const known = [...df.entries()].filter(([term]) => ids.has(term)).map(([term, n]): [number, number] => [ids.get(term)!, n]);
  for (let start = 0; start < fresh.length; start += TERMS_PER_STATEMENT) {
    await multiRowInsert('index_terms', ['mode', 'term', 'df'], fresh.slice(start, start + TERMS_PER_STATEMENT).map(([term, n]) => [mode, term, n])).execute(trx);
  }
  for (const [term, id] of await findIds(trx, mode, fresh.map(([term]) => term))) ids.set(term, id);
  await adjustDf(trx, new Map(known));
  return ids;
}

/** Adds each term's change to its df: one UPDATE per distinct change (nearly all are ±1 to ±5), ids in order. */
export async function adjustDf(trx: Transaction<Database>, changes: ReadonlyMap<number, number>): Promise<void> {
  const byChange = new Map<number, number[]>();
  for (const [id, change] of changes) {
    const ids = byChange.get(change);
    if (ids) ids.push(id);
    else byChange.set(change, [id]);
  }
  for (const [change, ids] of byChange) {
    ids.sort((a, b) => a - b);
    for (let start = 0; start < ids.length; start += TERMS_PER_STATEMENT) {
      await sql.raw(`UPDATE index_terms SET df = df + ${literalList([change])} WHERE id IN (${literalList(ids.slice(start, start + TERMS_PER_STATEMENT))})`).execute(trx);
    }
  }
}

async function findIds(trx: Transaction<Database>, mode: Mode, terms: readonly string[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (let start = 0; start < terms.length; start += TERMS_PER_STATEMENT) {
    const { rows } = await sql.raw<{ id: number | string; term: string }>(
      `SELECT id, term FROM index_terms WHERE mode = ${literalList([mode])} AND term IN (${literalList(terms.slice(start, start + TERMS_PER_STATEMENT))})`,
    ).execute(trx);
    for (const row of rows) ids.set(row.term, Number(row.id));
  }
  return ids;
}
