import type { Transaction } from 'kysely';
import type { Mode } from '../mode.js';
import type { Database } from '../storage/schema.js';
import { hammingDistance } from '../text/simhash.js';
import type { PreparedDocument } from './prepare-documents.js';

/** Simhashes of texts this short vary too little with content to tell copies apart. */
const MIN_TERMS = 30;
/** Bits two 64-bit simhashes may differ by and still be one story (Manku et al. use 3). */
const MAX_DISTANCE = 3;
const BANDS = ['sim0', 'sim1', 'sim2', 'sim3'] as const;

/**
 * For each new document, the indexed document of the mode it copies, if any: one whose simhash
 * is within MAX_DISTANCE bits. Such pairs share at least one 16-bit band (pigeonhole), so the
 * candidates of a whole batch come from the four band indexes in one query. A copy points at
 * the original story, never at another copy. (Copies within one batch are not compared.)
 */
export async function findNearDuplicates(trx: Transaction<Database>, mode: Mode, documents: readonly PreparedDocument[]): Promise<(number | null)[]> {
  const judged = documents.filter((d) => d.termCount >= MIN_TERMS);
  if (judged.length === 0) return documents.map(() => null);
  const candidates = await trx.selectFrom('index_documents').select(['id', 'duplicate_of', ...BANDS])
    .where('mode', '=', mode)
    .where((eb) => eb.or(BANDS.map((band, b) => eb(band, 'in', [...new Set(judged.map((d) => d.bands[b]!))]))))
    .orderBy('id').execute();
  return documents.map((document) => {
    if (document.termCount < MIN_TERMS) return null;
    const match = candidates.find((c) => hammingDistance([c.sim0, c.sim1, c.sim2, c.sim3], document.bands) <= MAX_DISTANCE);
    return match ? Number(match.duplicate_of ?? match.id) : null;
  });
}
