import type { Kysely, Transaction } from 'kysely';
import type { Mode } from '../mode.js';
import type { Database } from '../storage/schema.js';
import { sha256Hex } from '../storage/hash.js';
import { multiRowInsert } from '../storage/multi-row-insert.js';
import { encodeIdSet } from './postings-codec.js';
import type { PreparedDocument } from './prepare-documents.js';
import { hostOf, reverseDomain } from './domain.js';
import { findNearDuplicates } from './near-duplicates.repository.js';
import { removeDocuments } from './deletion.repository.js';
import { batchLists, createSegment, writeLists } from './segments.repository.js';
import { addToStats, lockStats } from './stats.repository.js';
import { addTerms } from './terms.repository.js';
import type { KnownTermIds } from './known-term-ids.js';
import type { IndexDocumentInput, IndexOutcome } from './types.js';

/** Rows per INSERT: large enough to amortise round trips, well under max_allowed_packet. */
const ROWS_PER_INSERT = 4000;

/**
 * Writes one batch in one transaction: unchanged documents (same content hash) are left alone,
 * changed ones lose their passages (and their share of df) before the new ones go in.
 * Multi-row INSERTs of an auto-increment table get consecutive ids (innodb_autoinc_lock_mode
 * 0 or 1, MariaDB's default; start-up refuses other modes, see server-requirements.ts), which is
 * how new rows are matched with their ids.
 */
export async function writeBatch(
  db: Kysely<Database>, mode: Mode, inputs: readonly IndexDocumentInput[], prepared: readonly PreparedDocument[], known?: KnownTermIds,
): Promise<IndexOutcome[]> {
  // Terms this write adds: remembered only once it has committed.
  let addedTerms: Map<string, number> | undefined;
  const outcomes = await db.transaction().execute(async (trx) => {
    // Writers of one mode take turns, the mode's statistics row (locked first) being their
    // mutex: concurrent batches otherwise take gap locks on the same URL and term ranges in
    // different orders and deadlock each other over and over.
    // A mode without statistics was never written or has been emptied: term ids this process
    // remembers of it may name rows that are gone.
    if (await lockStats(trx, mode)) known?.forget(mode);
    const hashes = inputs.map((d) => sha256Hex(d.url));
    const existing = await trx.selectFrom('index_documents').select(['id', 'url_hash', 'content_hash', 'duplicate_of', 'passage_count'])
      .where('mode', '=', mode).where('url_hash', 'in', hashes).forUpdate().execute();
    const byHash = new Map(existing.map((row) => [row.url_hash, row]));

    const outcomes: IndexOutcome[] = [];
    const fresh: number[] = [];
    const replaced = new Set<number>();
    for (let i = 0; i < inputs.length; i++) {
      const old = byHash.get(hashes[i]!);
      if (old && old.content_hash === prepared[i]!.contentHash) {
        outcomes[i] = { url: inputs[i]!.url, status: 'unchanged', documentId: Number(old.id), passages: old.passage_count, duplicateOf: old.duplicate_of === null ? null : Number(old.duplicate_of) };
      } else {
        if (old) replaced.add(i);
        fresh.push(i);
      }
    }
    // The same URL twice in a batch: the last copy wins.
    const lastOf = new Map(fresh.map((i) => [hashes[i]!, i]));
    const toWrite = fresh.filter((i) => lastOf.get(hashes[i]!) === i);
    if (toWrite.length === 0) return outcomes;

    const stale = toWrite.flatMap((i) => (replaced.has(i) ? [Number(byHash.get(hashes[i]!)!.id)] : []));
    if (stale.length > 0) await removeDocuments(trx, mode, stale);

    const duplicates = await findNearDuplicates(trx, mode, toWrite.map((i) => prepared[i]!));

    const documentIds = await insertDocuments(trx, mode, toWrite.map((i, n) => ({ input: inputs[i]!, urlHash: hashes[i]!, prepared: prepared[i]!, duplicateOf: duplicates[n] ?? null })));
    const passages = toWrite.flatMap((i, n) => prepared[i]!.passages.map((p, position) => ({ documentId: documentIds[n]!, position, passage: p })));
    const terms = await addTerms(trx, mode, passages.map((p) => p.passage.terms), known);
    const termIds = terms.ids;
    addedTerms = terms.fresh;
    const written = passages.map((p) => ({ ...p, termIds: p.passage.terms.map((term) => termIds.get(term)!) }));
    const passageIds = await insertPassages(trx, written);
    await writeSegment(trx, mode, written.map((p, n) => ({ id: passageIds[n]!, length: p.passage.length, termIds: p.termIds, tfs: p.passage.tfs })));
    await addToStats(trx, mode, { documents: toWrite.length, passages: passages.length, totalLength: passages.reduce((sum, p) => sum + p.passage.length, 0) });

    toWrite.forEach((i, n) => {
      outcomes[i] = {
        url: inputs[i]!.url,
        status: duplicates[n] ? 'duplicate' : replaced.has(i) ? 'replaced' : 'indexed',
        documentId: documentIds[n]!,
        passages: prepared[i]!.passages.length,
        duplicateOf: duplicates[n] ?? null,
      };
    });
    // A URL repeated within the batch reports what its last copy became.
    return inputs.map((_d, i) => outcomes[i] ?? { ...outcomes[lastOf.get(hashes[i]!)!]!, url: inputs[i]!.url });
  });
  if (addedTerms) known?.remember(mode, addedTerms);
  return outcomes;
}

async function insertDocuments(
  trx: Transaction<Database>, mode: Mode, rows: { input: IndexDocumentInput; urlHash: string; prepared: PreparedDocument; duplicateOf: number | null }[],
): Promise<number[]> {
  const result = await trx.insertInto('index_documents').values(rows.map(({ input, urlHash, prepared, duplicateOf }) => {
    const domain = hostOf(input.url);
    return {
      mode,
      url: input.url.slice(0, 2048),
      url_hash: urlHash,
      domain: domain.slice(0, 255),
      domain_reversed: reverseDomain(domain).slice(0, 256),
      title: input.title?.slice(0, 1024) ?? null,
      author: input.author?.slice(0, 512) ?? null,
      language: (input.language ?? prepared.language)?.slice(0, 16) ?? null,
      country_hint: input.countryHint?.slice(0, 2).toUpperCase() ?? null,
      published_at: input.publishedAt,
      fetched_at: input.fetchedAt,
      authority: input.authority,
      content_hash: prepared.contentHash,
      sim0: prepared.bands[0], sim1: prepared.bands[1], sim2: prepared.bands[2], sim3: prepared.bands[3],
      duplicate_of: duplicateOf,
      passage_count: prepared.passages.length,
      length: prepared.passages.reduce((sum, p) => sum + p.length, 0),
    };
  })).executeTakeFirstOrThrow();
  const first = Number(result.insertId);
  return rows.map((_r, n) => first + n);
}

async function insertPassages(
  trx: Transaction<Database>, rows: { documentId: number; position: number; passage: PreparedDocument['passages'][number]; termIds: number[] }[],
): Promise<number[]> {
  const ids: number[] = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const chunk = rows.slice(start, start + ROWS_PER_INSERT);
    const result = await multiRowInsert('index_passages', ['document_id', 'position', 'length', 'text', 'terms'],
      chunk.map((r) => [r.documentId, r.position, r.passage.length, r.passage.text, encodeIdSet(r.termIds)])).execute(trx);
    const first = Number(result.insertId);
    chunk.forEach((_r, n) => ids.push(first + n));
  }
  return ids;
}

/** The batch's postings become one new segment, visible to queries when the transaction commits. */
async function writeSegment(trx: Transaction<Database>, mode: Mode, passages: { id: number; length: number; termIds: number[]; tfs: number[] }[]): Promise<void> {
  const postings = passages.reduce((sum, p) => sum + p.termIds.length, 0);
  if (postings === 0) return;
  const segmentId = await createSegment(trx, mode, {
    level: 0, state: 'active', postings, firstPassage: passages[0]!.id, lastPassage: passages[passages.length - 1]!.id,
  });
  await writeLists(trx, segmentId, batchLists(passages), postings);
}
