import { Piscina } from 'piscina';
import type { Metrics, PoolStats } from '../metrics/metrics.js';
import type { PoolThreadData } from './thread-data.js';
import type { CleanHtmlInput, CleanHtmlOutput, renderStored, TooComplexPage } from '../html/clean-html.js';
import type { PrepareDocumentsInput, PreparedDocument } from '../index/prepare-documents.js';
import type { CleanPageInput, PreparedPage } from '../page/clean-page-task.js';
import type { ExtractiveSummaryInput, SummarySentence } from '../summary/extractive-summary.js';
import type { MergePostingsInput, MergePostingsOutput } from '../index/merge-postings.js';
import type { ScoreSegmentsInput, ScoreSegmentsOutput } from '../index/score-segments.js';
import type { RankSourcesInput, RankedSource } from '../ranking/rank-sources.js';
import type { RankAndSummarizeInput, RankAndSummarizeOutput } from '../ranking/rank-and-summarize.js';
import type { JudgeClaimInput, JudgeClaimOutput } from '../stance/judge-claim.js';
import type { FitContentInput, FitContentOutput } from '../html/render/fit-content.js';
import type { ExtractPdfInput, UnreadablePdf } from '../pdf/extract-pdf.js';

/** Task name → its input and output. Tasks are pure named exports of workers/pool/tasks.ts. */
interface PoolTasks {
  cleanHtml: { input: CleanHtmlInput; output: CleanHtmlOutput | TooComplexPage };
  cleanPage: { input: CleanPageInput; output: CleanHtmlOutput | PreparedPage | TooComplexPage };
  renderStored: { input: Parameters<typeof renderStored>[0]; output: ReturnType<typeof renderStored> };
  fitContent: { input: FitContentInput; output: FitContentOutput };
  prepareDocuments: { input: PrepareDocumentsInput; output: PreparedDocument[] };
  scoreSegments: { input: ScoreSegmentsInput; output: ScoreSegmentsOutput };
  mergePostings: { input: MergePostingsInput; output: MergePostingsOutput };
  extractiveSummary: { input: ExtractiveSummaryInput; output: SummarySentence[] };
  rankSources: { input: RankSourcesInput; output: RankedSource[] };
  rankAndSummarize: { input: RankAndSummarizeInput; output: RankAndSummarizeOutput };
  judgeClaim: { input: JudgeClaimInput; output: JudgeClaimOutput };
  extractPdf: { input: ExtractPdfInput; output: CleanHtmlOutput | UnreadablePdf };
}

export interface CpuPool {
  /** Threads the pool runs at most: how many parts one large task may usefully be split into. */
  readonly size: number;
  /** `timeoutMs` replaces POOL_TASK_TIMEOUT_MS for this task (PDF_TIMEOUT_MS for a PDF). */
  run<K extends keyof PoolTasks>(task: K, input: PoolTasks[K]['input'], options?: { timeoutMs?: number }): Promise<PoolTasks[K]['output']>;
  stats(): PoolStats;
  close(): Promise<void>;
}

/**
 * A task stopped by one of the pool's limits, its thread replaced. Its input's doing (one task
 * runs on a thread at a time): the same input would be stopped again, so it is not retried.
 */
export abstract class TaskLimitError extends Error {
  abstract readonly limit: 'time' | 'memory';

  constructor(readonly task: string, message: string) {
    super(message);
  }
}

/** A task ran past its time limit and was stopped. */
export class TaskTimeoutError extends TaskLimitError {
  readonly limit = 'time';

  constructor(task: string, readonly timeoutMs: number) {
    super(task, `pool task ${task} took longer than ${timeoutMs} ms`);
    this.name = 'TaskTimeoutError';
  }
}

/** A task filled its thread's heap (POOL_THREAD_HEAP_MB), which ended the thread. */
export class TaskOutOfMemoryError extends TaskLimitError {
  readonly limit = 'memory';

  constructor(task: string, readonly heapMb: number) {
    super(task, `pool task ${task} ran out of its thread's ${heapMb} MB of heap`);
    this.name = 'TaskOutOfMemoryError';
  }
}

/** How Node's Worker reports a thread that reached its resourceLimits; Piscina fails the thread's task with it. */
const OUT_OF_MEMORY = 'ERR_WORKER_OUT_OF_MEMORY';

const TASKS_FILE = new URL('../../workers/pool/tasks.js', import.meta.url).href;

/**
 * The Piscina pool for CPU-bound work. Each task has a time limit: a runaway task (a
 * pathological page) is aborted, which terminates its thread; Piscina starts a fresh one and
 * the pool keeps serving.
 */
export function createCpuPool(options: {
  threads: number;
  taskTimeoutMs: number;
  /** Heap of each thread (POOL_THREAD_HEAP_MB); 1024 MB without. */
  threadHeapMb?: number;
  /** Analysed texts each thread remembers (SEARCH_ANALYSIS_CACHE_MB; src/text/analysed-texts.ts); its default without. */
  analysisCacheBytes?: number;
  metrics?: Metrics;
  /** A thread that failed outside any task; Piscina replaces it. Without a listener Node would end the process. */
  onThreadError?: (error: Error) => void;
}): CpuPool {
  const threadHeapMb = options.threadHeapMb ?? 1024;
  const piscina = new Piscina({
    filename: TASKS_FILE,
    minThreads: 1,
    maxThreads: options.threads,
    idleTimeout: 30_000,
    // A bounded queue pushes back on callers instead of buffering without limit.
    maxQueue: options.threads * 64,
    // A page that makes a thread allocate without bound kills that thread, not the process.
    resourceLimits: { maxOldGenerationSizeMb: threadHeapMb },
    workerData: { analysisCacheBytes: options.analysisCacheBytes } satisfies PoolThreadData,
  });
  // A thread stopped at its time limit can still run out of memory on its way out: Piscina then
  // reports it as an 'error' event, which nothing would catch.
  piscina.on('error', (error: Error) => options.onThreadError?.(error));
  return {
    size: options.threads,
    async run(task, input, runOptions) {
      const stop = options.metrics?.poolTaskDuration.startTimer({ task });
      const timeoutMs = runOptions?.timeoutMs ?? options.taskTimeoutMs;
      try {
        return await piscina.run(input, { name: task, signal: AbortSignal.timeout(timeoutMs) });
      } catch (error) {
        if (error instanceof Error && error.name === 'AbortError') {
          throw new TaskTimeoutError(task, timeoutMs);
        }
        if ((error as { code?: unknown } | null)?.code === OUT_OF_MEMORY) throw new TaskOutOfMemoryError(task, threadHeapMb);
        throw error;
      } finally {
        stop?.();
      }
    },
    stats: () => ({ utilization: piscina.utilization, queueSize: piscina.queueSize, threads: piscina.threads.length }),
    close: () => piscina.destroy(),
  };
}
