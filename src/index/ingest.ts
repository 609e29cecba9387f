/**
 * Ingestion: validated documents in, converted to text, handed to the DocumentIndex in chunks.
 * The one code path behind POST /v1/index/documents (through the index queue's worker, where
 * the CPU pool is) and behind npm run ingest (which calls that endpoint).
 */
import type { Mode } from '../mode.js';
import { parseStorableDate } from '../storage/datetime.js';
import type { DomLimits } from '../html/dom.js';
import { TaskOutOfMemoryError, TaskTimeoutError, type CpuPool } from '../pool/pool.js';
import type { AcceptedDocument, IngestDocument, IngestError } from './ingest-document.js';
import { markdownToText } from './markdown-text.js';
import type { DocumentIndex, IndexDocumentInput, IndexOutcome, IndexStatus } from './types.js';

export interface IngestDeps {
  index: DocumentIndex;
  pool: CpuPool;
  /** How much DOM an html document may make (HTML_MAX_NODES, HTML_MAX_DEPTH), as a fetched page. */
  htmlLimits: DomLimits;
  now: () => Date;
}

export interface IngestResult extends Omit<IndexOutcome, 'url'> {
  index: number;
  url: string;
}

export type IngestCounts = Record<IndexStatus | 'rejected', number>;

export interface IngestProgress {
  done: number;
  total: number;
  counts: IngestCounts;
  errors: IngestError[];
}

export interface IngestReport extends IngestProgress {
  results: IngestResult[];
}

/**
 * Documents handed to the index at once: large enough for the index to batch its writes, small
 * enough that progress moves visibly and a retried chunk redoes little.
 */
export const INGEST_CHUNK = 50;

export function emptyCounts(): IngestCounts {
  return { indexed: 0, replaced: 0, unchanged: 0, duplicate: 0, rejected: 0 };
}

/**
 * Converts and indexes `documents` (of one mode), reporting progress after each chunk.
 * `rejected` are the documents refused before (validation), counted in the totals so that a
 * report covers the whole batch. A document that converts to no text is refused here.
 */
export async function ingestDocuments(
  deps: IngestDeps,
  mode: Mode,
  documents: readonly AcceptedDocument[],
  rejected: readonly IngestError[],
  onProgress: (progress: IngestProgress) => Promise<void> = async () => undefined,
): Promise<IngestReport> {
  const report: IngestReport = {
    done: rejected.length,
    total: documents.length + rejected.length,
    counts: { ...emptyCounts(), rejected: rejected.length },
    errors: [...rejected],
    results: [],
  };
  for (let start = 0; start < documents.length; start += INGEST_CHUNK) {
    const chunk = documents.slice(start, start + INGEST_CHUNK);
    const inputs: Array<{ index: number; input: IndexDocumentInput }> = [];
    for (const { index, document } of chunk) {
      const text = await toText(deps, document);
      if (typeof text === 'string') {
        inputs.push({ index, input: toIndexInput(document, text, deps.now()) });
      } else {
        report.errors.push({ index, field: 'content', reason: text.reason });
        report.counts.rejected++;
      }
    }
    const outcomes = inputs.length > 0 ? await deps.index.indexDocuments(mode, inputs.map((i) => i.input)) : [];
    outcomes.forEach((outcome, i) => {
      report.results.push({ ...outcome, index: inputs[i]!.index });
      report.counts[outcome.status]++;
    });
    report.done += chunk.length;
    await onProgress({ done: report.done, total: report.total, counts: report.counts, errors: report.errors });
  }
  report.errors.sort((a, b) => a.index - b.index);
  report.results.sort((a, b) => a.index - b.index);
  return report;
}

/** The document's text, or why it has none. */
async function toText(deps: IngestDeps, document: IngestDocument): Promise<string | { reason: string }> {
  let text: string | { reason: string };
  try {
    text = await convert(deps, document);
  } catch (error) {
    // A pathological page is this document's problem; anything else (pool down) fails the batch and is retried.
    if (error instanceof TaskTimeoutError) return { reason: `took longer than ${error.timeoutMs} ms to convert from html` };
    if (error instanceof TaskOutOfMemoryError) return { reason: `ran out of the ${error.heapMb} MB of memory a conversion from html may use` };
    throw error;
  }
  if (typeof text !== 'string') return text;
  return text.trim() === '' ? { reason: `has no text once converted from ${document.content_type}` } : text.trim();
}

/** The document's text, or why an html document is refused (past the DOM's limits). */
async function convert(deps: IngestDeps, document: IngestDocument): Promise<string | { reason: string }> {
  switch (document.content_type) {
    case 'text':
      return document.content;
    case 'markdown':
      return markdownToText(document.content);
    case 'html': {
      // The same cleaning as POST /v1/extract: main content only, as plain text.
      const cleaned = await deps.pool.run('cleanHtml', {
        html: document.content, url: document.url, kind: 'html', format: 'text', clean: true, preserveFormatting: false, limits: deps.htmlLimits,
      });
      return 'tooComplex' in cleaned ? { reason: cleaned.tooComplex } : cleaned.text;
    }
  }
}

function toIndexInput(document: IngestDocument, text: string, fetchedAt: Date): IndexDocumentInput {
  return {
    url: document.url,
    title: document.title,
    text,
    language: document.language ?? null,
    author: document.author ?? null,
    publishedAt: document.published_date === undefined ? null : parseStorableDate(document.published_date),
    fetchedAt,
    countryHint: document.country?.toUpperCase() ?? null,
    authority: null,
  };
}
