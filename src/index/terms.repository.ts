import { sql, type Transaction } from 'kysely';
import type { Mode } from '../mode.js';
import type { Database } from '../storage/schema.js';
import { literalList, multiRowInsert } from '../storage/multi-row-insert.js';
import type { KnownTermIds } from './known-term-ids.js';

/** Terms per statement: a few hundred KB of parameters at most. */
const TERMS_PER_STATEMENT = 4000;

/**
 * Ids of a batch's terms, adding the new ones, and each term's df raised by the passages of the
 * batch that contain it. Terms `known` holds are not looked up; the others are found by one
 * indexed read (and remembered in `known`: committed rows) or inserted (`fresh`: the caller
 * remembers them once its transaction commits). Known terms are changed by primary key, which
 * measured several times faster than INSERT … ON DUPLICATE KEY UPDATE over the whole
 * vocabulary of a batch. Callers hold the mode's writer turn, so no other writer adds terms of
 * this mode meanwhile. The statements carry thousands of values, written as literals
 * (multi-row-insert.ts): a query tree of as many nodes cost more than the database's work.
 */
export async function addTerms(
  trx: Transaction<Database>, mode: Mode, passageTerms: readonly string[][], known?: KnownTermIds,
): Promise<{ ids: Map<string, number>; fresh: Map<string, number> }> {
  const df = new Map<string, number>();
  for (const terms of passageTerms) for (const term of terms) df.set(term, (df.get(term) ?? 0) + 1);
  const ids = new Map<string, number>();
  const unknown: string[] = [];
  for (const term of df.keys()) {
    const id = known?.get(mode, term);
    if (id === undefined) unknown.push(term);
    else ids.set(term, id);
  }
  const found = await findIds(trx, mode, unknown);
  known?.remember(mode, found);
  for (const [term, id] of found) ids.set(term, id);
  const fresh = new Map<string, number>();
  const toInsert = unknown.filter((term) => !found.has(term)).map((term): [string, number] => [term, df.get(term)!]);
  const changes = new Map([...ids].map(([term, id]): [number, number] => [id, df.get(term)!]));
  for (let start = 0; start < toInsert.length; start += TERMS_PER_STATEMENT) {
    const chunk = toInsert.slice(start, start + TERMS_PER_STATEMENT);
    const result = await multiRowInsert('index_terms', ['mode', 'term', 'df'], chunk.map(([term, n]) => [mode, term, n])).execute(trx);
    // The rows of a multi-row INSERT get consecutive ids from its insertId, as passages and
    // documents do (writer.repository.ts): no statement to read them back.
    const first = Number(result.insertId);
    chunk.forEach(([term], n) => fresh.set(term, first + n));
  }
  await adjustDf(trx, changes);
  for (const [term, id] of fresh) ids.set(term, id);
  return { ids, fresh };
}

/**
 * Adds each term's change to its df, in one UPDATE per TERMS_PER_STATEMENT terms (ids in order):
 * the most common change (nearly always +1) for all of them, the others picked out by a CASE of
 * one IN list per change value. A statement per distinct change, as before, was a round trip
 * per value: some thirty for a group of concurrent extractions.
 */
export async function adjustDf(trx: Transaction<Database>, changes: ReadonlyMap<number, number>): Promise<void> {
  const ids = [...changes.keys()].sort((a, b) => a - b);
  for (let start = 0; start < ids.length; start += TERMS_PER_STATEMENT) {
    const chunk = ids.slice(start, start + TERMS_PER_STATEMENT);
    const byChange = new Map<number, number[]>();
    for (const id of chunk) {
      const change = changes.get(id)!;
      const same = byChange.get(change);
      if (same) same.push(id);
      else byChange.set(change, [id]);
    }
    const [common, ...others] = [...byChange].sort((a, b) => b[1].length - a[1].length);
    const increment = others.length === 0
      ? literalList([common![0]])
      : `CASE ${others.map(([change, changed]) => `WHEN id IN (${literalList(changed)}) THEN ${literalList([change])}`).join(' ')} ELSE ${literalList([common![0]])} END`;
    await sql.raw(`UPDATE index_terms SET df = df + ${increment} WHERE id IN (${literalList(chunk)})`).execute(trx);
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
