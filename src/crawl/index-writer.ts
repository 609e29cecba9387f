/**
 * How a crawl writes to the index: pages cleaned while a write is under way wait and go
 * together in the next write (group commit), so one crawl has one write in flight and a busy
 * crawl writes in batches: writers of one mode take turns inside the index anyway, and each
 * write pays that turn once (the index retries a write that loses a deadlock, so pages already
 * fetched are not fetched again for it).
 */
import type { Mode } from '../mode.js';
import type { DocumentIndex, IndexDocumentInput, IndexOutcome } from '../index/types.js';

/** Pages per write at most. */
const MAX_BATCH = 50;

export type IndexWriter = Pick<DocumentIndex, 'indexDocuments'>;

interface Waiting {
  document: IndexDocumentInput;
  resolve: (outcome: IndexOutcome) => void;
  reject: (error: unknown) => void;
}

/** An index writer for one crawl (one mode). */
export function crawlIndexWriter(index: DocumentIndex, mode: Mode): IndexWriter {
  const waiting: Waiting[] = [];
  let writing = false;

  const drain = async () => {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting.splice(0, MAX_BATCH);
      try {
        const outcomes = await index.indexDocuments(mode, batch.map((w) => w.document));
        batch.forEach((w, i) => w.resolve(outcomes[i]!));
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    writing = false;
  };

  return {
    indexDocuments: async (_mode, documents) => Promise.all(documents.map((document) => new Promise<IndexOutcome>((resolve, reject) => {
      waiting.push({ document, resolve, reject });
      if (!writing) void drain();
    }))),
  };
}
