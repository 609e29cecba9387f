import type { DomLimits } from '../html/dom.js';
import type { CpuPool } from '../pool/pool.js';
import type { DocumentIndex } from '../index/types.js';
import { ingestDocuments, type IngestReport } from '../index/ingest.js';
import type { IndexJob } from '../index/jobs.js';

export interface IndexProcessorDeps {
  index: DocumentIndex;
  pool: CpuPool;
  htmlLimits: DomLimits;
}

/**
 * BullMQ processor of the index queue: batches to ingest (converted here, where the CPU pool
 * is), and deletions (here too, so the API role needs neither the pool nor the index).
 */
export function createIndexProcessor(deps: IndexProcessorDeps) {
  return async (job: IndexJob): Promise<IngestReport | { deleted: number }> => {
    const { mode, input } = job.data;
    if (input.kind === 'delete') {
      const deleted = input.domain !== undefined
        ? await deps.index.deleteByDomain(mode, input.domain)
        : await deps.index.deleteByUrls(mode, input.urls ?? []);
      return { deleted };
    }
    const report = await ingestDocuments(
      { index: deps.index, pool: deps.pool, htmlLimits: deps.htmlLimits, now: () => new Date() },
      mode,
      input.documents,
      input.rejected,
      (progress) => job.updateProgress({ ...progress }),
    );
    return input.keep_results ? report : { ...report, results: [] };
  };
}
