/**
 * Optional abstractive summaries from an OpenAI-compatible chat-completions endpoint
 * (LLM_BASE_URL): the model answers the query from numbered passages, and its answer is kept
 * only as far as it obeys the citation rule (citations.ts). Every problem, from a refused
 * connection to an answer without a valid citation, comes back as { ok: false } so that search
 * returns its extractive summary instead; nothing here throws for what the endpoint does. The
 * request itself, the answer's reading and the circuit breaker are the shared client's
 * (../upstream/chat-completions-client.ts).
 */
import type { Config } from '../../config.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { CircuitState } from '../upstream/circuit-breaker.js';
import { ChatEndpoints } from '../upstream/chat-completions-client.js';
import { checkCitations, renderCited, type CitedSentence } from './citations.js';
import { chatMessages, summaryMessages, type Passage, type SummaryLength } from './prompt.js';

export type { Passage } from './prompt.js';

/** The breaker's label in sev_upstream_circuit_state. */
const ENGINE = 'llm';
const OUTCOMES = ['ok', 'error', 'timeout', 'invalid', 'rejected_open'] as const;
type MetricOutcome = (typeof OUTCOMES)[number];

export interface SummaryRequest {
  /** Search: the question the summary answers. Summary (with `length`): the focus, when one is given. */
  readonly query?: string;
  /** Present: a summary of the passages of at most this length (POST /v1/summarize); absent: an answer to `query` (search). */
  readonly length?: SummaryLength;
  /** Numbered as the sources the caller will return: [n] in the summary points at passage n. */
  readonly passages: readonly Passage[];
  /** Language code of the summary such as "en"; absent: the language of the passages. */
  readonly language?: string;
  /** The caller's deadline: the call ends when it aborts, even before LLM_TIMEOUT_MS. */
  readonly signal?: AbortSignal;
}

/**
 * timeout: no answer within LLM_TIMEOUT_MS; aborted: the caller's signal ended the call;
 * error: transport failure, non-2xx status, an error object, unreadable JSON;
 * invalid: an answer, but empty or without one sentence that obeys the citation rule;
 * circuit_open: not attempted after repeated failures.
 */
export type SummaryFailure = 'timeout' | 'aborted' | 'error' | 'invalid' | 'circuit_open';

export type SummaryOutcome =
  | {
      readonly ok: true;
      /** The kept sentences, each with its citations as [n][m]. */
      readonly summary: string;
      readonly sentences: readonly CitedSentence[];
      /** Every passage number cited, ascending. */
      readonly citations: readonly number[];
      /** Sentences of the answer removed for breaking the citation rule. */
      readonly dropped: number;
    }
  | { readonly ok: false; readonly reason: SummaryFailure; readonly detail: string };

export interface Summarizer {
  summarize(request: SummaryRequest): Promise<SummaryOutcome>;
  circuitState(): CircuitState;
}

/**
 * The summarizer, or undefined when LLM_BASE_URL is not set. `endpoints` holds the process's
 * chat-completions breakers: pass the process's own so that the judge on the same endpoint
 * shares this breaker.
 */
export function createChatCompletionsSummarizer(config: Config, metrics: Metrics, endpoints = new ChatEndpoints(config, metrics)): Summarizer | undefined {
  const settings = config.llm;
  if (!settings) return undefined;
  const client = endpoints.client(settings, ENGINE);
  // Present from the start, so that increase() over the first failure after a restart is not lost.
  for (const outcome of OUTCOMES) metrics.summarizerRequests.inc({ outcome }, 0);
  const count = (outcome: MetricOutcome): void => metrics.summarizerRequests.inc({ outcome });

  return {
    circuitState: () => client.circuitState(),
    async summarize(request) {
      if (request.passages.length === 0) return { ok: false, reason: 'invalid', detail: 'no passages to summarise' };
      const messages = request.length
        ? summaryMessages(request.passages, request.length, request.query, request.language)
        : chatMessages(request.query ?? '', request.passages, request.language);
      const answer = await client.complete({ messages, signal: request.signal });
      if (answer.ok) {
        const outcome = summaryOf(answer.content, answer.truncated, request.passages);
        count(outcome.ok ? 'ok' : 'invalid');
        return outcome;
      }
      if (answer.reason === 'circuit_open') {
        count('rejected_open');
        return { ok: false, reason: 'circuit_open', detail: 'summarizer circuit is open after repeated failures' };
      }
      count(answer.reason === 'invalid' ? 'invalid' : answer.reason === 'aborted' ? 'timeout' : answer.reason);
      return answer;
    },
  };
}

function summaryOf(content: string, truncated: boolean, passages: readonly Passage[]): SummaryOutcome {
  const { sentences, dropped } = checkCitations(content, new Set(passages.map((p) => p.n)), truncated);
  if (sentences.length === 0) {
    return { ok: false, reason: 'invalid', detail: `no sentence with a valid citation (${dropped} dropped)` };
  }
  const citations = [...new Set(sentences.flatMap((s) => s.citations))].sort((a, b) => a - b);
  return { ok: true, summary: renderCited(sentences), sentences, citations, dropped };
}
