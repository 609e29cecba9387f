// Piscina task module: every named export is a pure, CPU-bound task (no I/O, no shared state;
// extractPdf reads pdf.js's bundled character maps from its package, nothing else). What a
// thread remembers between tasks (analysed texts) changes no task's output, only its cost.
// The cleaning tasks are named cleanHtml and cleanPage in the pool (and its metrics) but answer a
// page past the DOM's limits as data: see cleanHtmlTask.
import { workerData } from 'node:worker_threads';
import type { PoolThreadData } from '../../src/pool/thread-data.js';
import { rememberAnalysedTexts } from '../../src/text/analysed-texts.js';

const thread = workerData as PoolThreadData | undefined;
if (thread?.analysisCacheBytes !== undefined) rememberAnalysedTexts(thread.analysisCacheBytes);

export { cleanHtmlTask as cleanHtml, renderStored } from '../../src/html/clean-html.js';
export { fitContent } from '../../src/html/render/fit-content.js';
export { extractiveSummary } from '../../src/summary/extractive-summary.js';
export { prepareDocuments } from '../../src/index/prepare-documents.js';
export { cleanPageTask as cleanPage } from '../../src/page/clean-page-task.js';
export { mergePostings } from '../../src/index/merge-postings.js';
export { scoreSegments } from '../../src/index/score-segments.js';
export { rankSources } from '../../src/ranking/rank-sources.js';
export { rankAndSummarize } from '../../src/ranking/rank-and-summarize.js';
export { judgeClaim } from '../../src/stance/judge-claim.js';
export { extractPdf } from '../../src/pdf/extract-pdf.js';
