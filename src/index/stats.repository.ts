import { sql, type Transaction } from 'kysely';
import type { Mode } from '../mode.js';
import type { Database } from '../storage/schema.js';

// The corpus statistics BM25 needs (documents, passages, their total length), one row per mode,
// kept by writes and deletions in the same transaction as the postings they count.
/**
 * Locks the mode's statistics row, the writers' turn (see writeBatch), creating it on first use;
 * true when there was none (a mode never written, or emptied). Locking comes first: INSERT IGNORE
 * over an existing row takes a shared lock, and two writers each holding one and asking for the
 * exclusive lock deadlock every time.
 */
export async function lockStats(trx: Transaction<Database>, mode: Mode): Promise<boolean> {
  const lock = () => trx.selectFrom('index_stats').select('mode').where('mode', '=', mode).forUpdate().executeTakeFirst();
  if (await lock()) return false;
  await trx.insertInto('index_stats').values({ mode, passages: 0, total_length: 0 }).ignore().execute();
  await lock();
  return true;
}

/** Adds (or, negative, takes away) documents, passages and their total length to the mode's statistics. */
export async function addToStats(
  trx: Transaction<Database>, mode: Mode, change: { documents: number; passages: number; totalLength: number },
): Promise<void> {
  await trx.updateTable('index_stats')
    .set({
      documents: sql`documents + ${change.documents}`, passages: sql`passages + ${change.passages}`, total_length: sql`total_length + ${change.totalLength}`,
    })
    .where('mode', '=', mode).execute();
}
