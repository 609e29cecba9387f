/**
 * The client side of npm run ingest: a JSONL file cut into batches that POST
 * /v1/index/documents answers within the request, and the answers mapped back to line numbers.
 * Going through the API keeps one code path (validation, conversion in the workers' pool, the
 * DocumentIndex) and works against any deployment, local or remote, with an ordinary key.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { INGEST_CHUNK, emptyCounts, type IngestCounts } from '../index/ingest.js';
import type { IngestError } from '../index/ingest-document.js';
import { SevError, type Schemas, type SevClient } from '../../clients/typescript/src/index.js';
import { serviceClient } from './service-client.js';

/** Documents per request: the most the API indexes within the request. */
export const BATCH_DOCUMENTS = INGEST_CHUNK;
/** Bytes per request, well under the 10 MB body limit. */
export const BATCH_BYTES = 8 * 1024 * 1024;
/** How often a batch that became a job (the API's wait ran out) is polled. */
const POLL_MS = 1000;

export interface Batch {
  /** 1-based line number of each document. */
  lines: number[];
  documents: unknown[];
  /** Lines that are not JSON, reported without being sent. */
  unreadable: LineError[];
}

export interface LineError {
  line: number;
  field: string | null;
  reason: string;
}

export interface BatchOutcome {
  counts: IngestCounts;
  errors: LineError[];
}

/** Non-blank lines of the file: the total the progress bar counts towards. */
export async function countDocuments(file: string): Promise<number> {
  let count = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line.trim() !== '') count++;
  }
  return count;
}

export async function* readBatches(file: string): AsyncGenerator<Batch> {
  let batch: Batch = { lines: [], documents: [], unreadable: [] };
  let bytes = 0;
  let lineNumber = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    lineNumber++;
    if (line.trim() === '') continue;
    if (batch.documents.length >= BATCH_DOCUMENTS || (bytes > 0 && bytes + line.length > BATCH_BYTES)) {
      yield batch;
      batch = { lines: [], documents: [], unreadable: [] };
      bytes = 0;
    }
    try {
      batch.documents.push(JSON.parse(line) as unknown);
      batch.lines.push(lineNumber);
      bytes += line.length;
    } catch (error) {
      batch.unreadable.push({ line: lineNumber, field: null, reason: `is not valid JSON (${(error as Error).message})` });
    }
  }
  if (batch.documents.length > 0 || batch.unreadable.length > 0) yield batch;
}

/** What a batch's answer and its job's state, once polled, both tell. */
interface IndexAnswer {
  job_id: string | null;
  state: string;
  counts?: IngestCounts;
  errors: IngestError[];
  failure?: { code: string; message: string };
}

export class IngestClient {
  private readonly api: SevClient;

  constructor(baseUrl: string, apiKey: string) {
    this.api = serviceClient(baseUrl, apiKey);
  }

  /** Indexes one batch, retrying transient failures; its errors carry file line numbers. */
  async send(batch: Batch): Promise<BatchOutcome> {
    const outcome: BatchOutcome = { counts: { ...emptyCounts(), rejected: batch.unreadable.length }, errors: [...batch.unreadable] };
    if (batch.documents.length === 0) return outcome;
    // The file's lines go as they are: the API checks each document and reports the bad ones.
    const answer = await this.settle(await this.api.indexDocuments({ documents: batch.documents as Schemas['index-documents.request']['documents'] }));
    for (const [status, n] of Object.entries(answer.counts ?? emptyCounts()) as Array<[keyof IngestCounts, number]>) outcome.counts[status] += n;
    for (const error of answer.errors) outcome.errors.push({ line: batch.lines[error.index]!, field: error.field, reason: error.reason });
    outcome.errors.sort((a, b) => a.line - b.line);
    return outcome;
  }

  /** A batch the API handed to a job (it outlasted the request's wait) is polled to its end. */
  private async settle(answer: IndexAnswer): Promise<IndexAnswer> {
    let current = answer;
    while (current.state === 'queued' || current.state === 'running') {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      current = await this.api.indexJob(answer.job_id!);
    }
    if (current.state === 'failed') {
      throw new SevError({ code: current.failure?.code ?? 'INTERNAL_SERVER_ERROR', message: current.failure?.message ?? 'the job failed', status: 0 });
    }
    return current;
  }
}
