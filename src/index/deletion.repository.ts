import type { Kysely, Transaction } from 'kysely';
import type { Mode } from '../mode.js';
import type { Database } from '../storage/schema.js';
import { addToStats, lockStats } from './stats.repository.js';
import { adjustDf } from './terms.repository.js';
import { domainPattern } from './domain.js';
import { countDeadPostings } from './segments.repository.js';
import { decodeIdSet } from './postings-codec.js';

/**
 * Removes documents with their passages, takes their passages out of df and the mode's
 * statistics, and frees copies that pointed at them (they stand alone from now on). Their
 * postings stay in the segments until a merge drops them; queries skip passages that are gone.
 */
export async function removeDocuments(trx: Transaction<Database>, mode: Mode, documentIds: readonly number[]): Promise<void> {
  if (documentIds.length === 0) return;
  const passages = (await trx.selectFrom('index_passages').select(['id', 'length', 'terms']).where('document_id', 'in', documentIds).execute())
    .map((p) => ({ id: Number(p.id), length: Number(p.length), termIds: decodeIdSet(p.terms) }));
  if (passages.length > 0) {
    const df = new Map<number, number>();
    for (const { termIds } of passages) for (const id of termIds) df.set(id, (df.get(id) ?? 0) - 1);
    await adjustDf(trx, df);
    await countDeadPostings(trx, mode, passages.map((p) => ({ id: p.id, postings: p.termIds.length })));
    await trx.deleteFrom('index_passages').where('id', 'in', passages.map((p) => p.id)).execute();
  }
  await addToStats(trx, mode, { documents: -documentIds.length, passages: -passages.length, totalLength: -passages.reduce((sum, p) => sum + p.length, 0) });
  await trx.updateTable('index_documents').set({ duplicate_of: null }).where('duplicate_of', 'in', documentIds).execute();
  await trx.deleteFrom('index_documents').where('id', 'in', documentIds).execute();
}

export async function deleteUrls(db: Kysely<Database>, mode: Mode, urlHashes: readonly string[]): Promise<number> {
  if (urlHashes.length === 0) return 0;
  return db.transaction().execute(async (trx) => {
    await lockStats(trx, mode);
    const rows = await trx.selectFrom('index_documents').select('id').where('mode', '=', mode).where('url_hash', 'in', urlHashes).forUpdate().execute();
    await removeDocuments(trx, mode, rows.map((r) => Number(r.id)));
    return rows.length;
  });
}

/** The domain and every subdomain: their reversed names share its reversed prefix. */
export async function deleteDomain(db: Kysely<Database>, mode: Mode, domain: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await lockStats(trx, mode);
    const rows = await trx.selectFrom('index_documents').select('id').where('mode', '=', mode).where('domain_reversed', 'like', domainPattern(domain)).forUpdate().execute();
    await removeDocuments(trx, mode, rows.map((r) => Number(r.id)));
    return rows.length;
  });
}
