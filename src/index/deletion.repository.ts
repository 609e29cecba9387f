import { sql, type Kysely, type Transaction } from 'kysely';
import type { KeyMode } from '../auth/keys.repository.js';
import type { Database } from '../storage/schema.js';
import { addToStats } from './writer.repository.js';
import { reverseDomain } from './domain.js';

/**
 * Removes documents with their passages and postings, takes their passages out of df and the
 * mode's statistics, and frees copies that pointed at them (they stand alone from now on).
 */
export async function removeDocuments(trx: Transaction<Database>, mode: KeyMode, documentIds: readonly number[]): Promise<void> {
  if (documentIds.length === 0) return;
  const passages = await trx.selectFrom('index_passages').select(['id', 'length']).where('document_id', 'in', documentIds).execute();
  const passageIds = passages.map((p) => Number(p.id));
  if (passageIds.length > 0) {
    const perTerm = await trx.selectFrom('index_postings').select(['term_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('passage_id', 'in', passageIds).groupBy('term_id').orderBy('term_id').execute();
    for (const { term_id: termId, n } of perTerm) {
      await trx.updateTable('index_terms').set({ df: sql`df - ${Number(n)}` }).where('id', '=', termId).execute();
    }
    await trx.deleteFrom('index_postings').where('passage_id', 'in', passageIds).execute();
    await trx.deleteFrom('index_passages').where('id', 'in', passageIds).execute();
    await addToStats(trx, mode, -passageIds.length, -passages.reduce((sum, p) => sum + Number(p.length), 0));
  }
  await trx.updateTable('index_documents').set({ duplicate_of: null }).where('duplicate_of', 'in', documentIds).execute();
  await trx.deleteFrom('index_documents').where('id', 'in', documentIds).execute();
}

export async function deleteUrls(db: Kysely<Database>, mode: KeyMode, urlHashes: readonly string[]): Promise<number> {
  if (urlHashes.length === 0) return 0;
  return db.transaction().execute(async (trx) => {
    const rows = await trx.selectFrom('index_documents').select('id').where('mode', '=', mode).where('url_hash', 'in', urlHashes).forUpdate().execute();
    await removeDocuments(trx, mode, rows.map((r) => Number(r.id)));
    return rows.length;
  });
}

/** The domain and every subdomain: their reversed names share its reversed prefix. */
export async function deleteDomain(db: Kysely<Database>, mode: KeyMode, domain: string): Promise<number> {
  const prefix = reverseDomain(domain).replace(/[\\%_]/g, (c) => `\\${c}`);
  return db.transaction().execute(async (trx) => {
    const rows = await trx.selectFrom('index_documents').select('id').where('mode', '=', mode).where('domain_reversed', 'like', `${prefix}%`).forUpdate().execute();
    await removeDocuments(trx, mode, rows.map((r) => Number(r.id)));
    return rows.length;
  });
}
