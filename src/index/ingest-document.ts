/**
 * One document of an ingestion batch (POST /v1/index/documents, npm run ingest): its shape, and
 * the check that sorts a batch into documents to index and documents refused, each refusal
 * named by its position so the sender can find and fix it.
 */
import { ApiError } from '../errors/catalogue.js';
import { validateBody } from '../schema/request-validator.js';
import { parseStorableDate, STORABLE_DATE } from '../storage/datetime.js';

export type ContentType = 'text' | 'markdown' | 'html';

/** A document as the API and the JSONL file carry it (after index-document's defaults). */
export interface IngestDocument {
  url: string;
  title: string;
  content: string;
  content_type: ContentType;
  published_date?: string;
  language?: string;
  country?: string;
  author?: string;
}

/** A document that passed validation, with its position in the batch. */
export interface AcceptedDocument {
  index: number;
  document: IngestDocument;
}

/** A document that was not indexed. `field` is null when the document as a whole is at fault. */
export interface IngestError {
  index: number;
  field: string | null;
  reason: string;
}

export interface SortedBatch {
  accepted: AcceptedDocument[];
  rejected: IngestError[];
}

export function sortBatch(documents: readonly unknown[]): SortedBatch {
  const sorted: SortedBatch = { accepted: [], rejected: [] };
  documents.forEach((raw, index) => {
    const result = checkDocument(raw);
    if ('reason' in result) sorted.rejected.push({ index, ...result });
    else sorted.accepted.push({ index, document: result });
  });
  return sorted;
}

/** The document with defaults filled in, or why it is refused. */
export function checkDocument(raw: unknown): IngestDocument | Omit<IngestError, 'index'> {
  let document: IngestDocument;
  try {
    document = validateBody<IngestDocument>('index-document', raw);
  } catch (error) {
    if (error instanceof ApiError) return refusal(error);
    throw error;
  }
  // Dates are checked here rather than by format: both a bare date and a date-time are welcome,
  // and a date MySQL cannot hold must refuse this document, not fail the batch's statement.
  if (document.published_date !== undefined && parseStorableDate(document.published_date) === null) {
    return { field: 'published_date', reason: `must be ${STORABLE_DATE}` };
  }
  return document;
}

/** The schema error restated as field and reason; the body-level name means the document itself. */
function refusal(error: ApiError): Omit<IngestError, 'index'> {
  const details = error.details ?? {};
  const parameter = typeof details.parameter === 'string' ? details.parameter : error.code === 'URL_INVALID' ? 'url' : null;
  const field = parameter === 'body' ? null : parameter;
  const reason = typeof details.reason === 'string' ? details.reason : error.message;
  return { field, reason };
}
