import type { Mode } from '../mode.js';
import type { DocumentIndex, QueryWeights, RetrieveOptions } from '../index/types.js';
import type { SourceCandidate } from '../ranking/rank-sources.js';

/**
 * Passages retrieved per wanted document. A document brings 1–3 matching passages (SciFact:
 * 2.3 passages a document, fewer of them matching); four per document leaves room for that
 * and, on SciFact, reaches the wanted number of documents for nearly every query, while the
 * further passages of a document feed the ranking's "more than one passage matches" evidence.
 */
const PASSAGES_PER_DOCUMENT = 4;

/**
 * The index's side of a search: its best passages grouped into documents (best passage first,
 * documents in the order of their best passage), at most `documents` of them, as the ranking
 * stage (rankSources) takes them, and the query's weights in the index that the ranking scores
 * them with (read once for both).
 */
export async function indexCandidates(
  index: DocumentIndex, mode: Mode, query: string, options: Omit<RetrieveOptions, 'limit'> & { documents: number },
): Promise<{ weights: QueryWeights; candidates: SourceCandidate[] }> {
  const { documents, ...filters } = options;
  if (documents <= 0) return { weights: await index.queryWeights(mode, query, filters.language), candidates: [] };
  const { weights, passages } = await index.retrieveWeighed(mode, query, { ...filters, limit: documents * PASSAGES_PER_DOCUMENT });
  const byDocument = new Map<number, SourceCandidate>();
  for (const passage of passages) {
    let candidate = byDocument.get(passage.documentId);
    if (!candidate) {
      if (byDocument.size === documents) continue;
      candidate = {
        url: passage.url, title: passage.title ?? '', domain: passage.domain,
        publishedAt: passage.publishedAt?.getTime() ?? null, fetchedAt: passage.fetchedAt.getTime(),
        country: passage.countryHint?.toUpperCase() ?? null, authority: passage.authority,
        passages: [], length: passage.documentLength, origin: 'index',
      };
      byDocument.set(passage.documentId, candidate);
    }
    candidate.passages.push({ text: passage.text, score: passage.score, first: passage.first });
  }
  return { weights, candidates: [...byDocument.values()] };
}
