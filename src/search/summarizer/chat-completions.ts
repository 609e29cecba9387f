/**
 * Optional abstractive summaries from an OpenAI-compatible chat-completions endpoint
 * (LLM_BASE_URL): the model answers the query from numbered passages, and its answer is kept
 * only as far as it obeys the citation rule (citations.ts). Every problem, from a refused
 * connection to an answer without a valid citation, comes back as { ok: false } so that search
 * returns its extractive summary instead; nothing here throws for what the endpoint does.
 *
 * The endpoint is called directly, not through the page fetcher's address guard, for the reason
 * given in ../upstream/json-request.ts: it is configured by the operator, not by clients.
 */
import type { Config } from '../../config.js';
import type { Metrics } from '../../metrics/metrics.js';
import { settleCall, type CircuitState } from '../upstream/circuit-breaker.js';
import { isRecord } from '../../json-record.js';
import { requestJson, transportFailure, type JsonOutcome } from '../upstream/json-request.js';
import { monitoredBreaker } from '../upstream/monitored-breaker.js';
import { checkCitations, renderCited, type CitedSentence } from './citations.js';
import { chatMessages, type Passage } from './prompt.js';

export type { Passage } from './prompt.js';

/** The breaker's label in sev_upstream_circuit_state. */
const ENGINE = 'llm';
const MAX_RESPONSE_BYTES = 1024 * 1024;
const OUTCOMES = ['ok', 'error', 'timeout', 'invalid', 'rejected_open'] as const;
type MetricOutcome = (typeof OUTCOMES)[number];

export interface SummaryRequest {
  readonly query: string;
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

type Answer = { readonly ok: true; readonly content: string; readonly truncated: boolean } | { readonly ok: false; readonly reason: SummaryFailure; readonly detail: string };

/** The summarizer, or undefined when LLM_BASE_URL is not set. */
export function createChatCompletionsSummarizer(config: Config, metrics: Metrics): Summarizer | undefined {
  const settings = config.llm;
  if (!settings) return undefined;
  const endpoint = new URL(settings.baseUrl);
  endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, '')}/chat/completions`;
  const headers: Record<string, string> = { 'user-agent': config.fetch.userAgent };
  if (settings.apiKey !== undefined) headers.authorization = `Bearer ${settings.apiKey}`;
  const breaker = monitoredBreaker(ENGINE, config.upstreamBreaker, metrics);
  // Present from the start, so that increase() over the first failure after a restart is not lost.
  for (const outcome of OUTCOMES) metrics.summarizerRequests.inc({ outcome }, 0);
  const count = (outcome: MetricOutcome): void => metrics.summarizerRequests.inc({ outcome });

  return {
    circuitState: () => breaker.state(),
    async summarize(request) {
      if (request.passages.length === 0) return { ok: false, reason: 'invalid', detail: 'no passages to summarise' };
      const permit = breaker.tryAcquire();
      if (!permit) {
        count('rejected_open');
        return { ok: false, reason: 'circuit_open', detail: 'summarizer circuit is open after repeated failures' };
      }
      const response = await requestJson(endpoint, {
        method: 'POST',
        headers,
        body: {
          model: settings.model,
          messages: chatMessages(request.query, request.passages, request.language),
          temperature: 0,
          max_tokens: settings.maxTokens,
          stream: false,
        },
        timeoutMs: settings.timeoutMs,
        signal: request.signal,
        maxBytes: MAX_RESPONSE_BYTES,
      });
      const answer = readAnswer(response);
      if (answer.ok || answer.reason === 'invalid') {
        // The endpoint works; whether this answer is usable is a separate matter.
        permit.success();
        const outcome = answer.ok ? summaryOf(answer.content, answer.truncated, request.passages) : answer;
        count(outcome.ok ? 'ok' : 'invalid');
        return outcome;
      }
      count(settleCall(permit, answer.reason));
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

/** choices[0].message.content of an OpenAI-format answer, or why there is none. */
function readAnswer(response: JsonOutcome): Answer {
  if (response.kind !== 'json') return transportFailure(response);
  const body = response.value;
  const failed = response.status < 200 || response.status > 299;
  if (isRecord(body) && body.error !== undefined && body.error !== null) {
    return { ok: false, reason: 'error', detail: `${failed ? `HTTP ${response.status}: ` : ''}${errorMessage(body.error)}` };
  }
  if (failed) return { ok: false, reason: 'error', detail: `HTTP ${response.status}` };
  const choice: unknown = isRecord(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  const message = isRecord(choice) ? choice.message : undefined;
  if (!isRecord(choice) || !isRecord(message)) return { ok: false, reason: 'error', detail: 'answer has no choices[0].message' };
  const { content } = message;
  if (content !== undefined && content !== null && typeof content !== 'string') {
    return { ok: false, reason: 'error', detail: 'choices[0].message.content is not a string' };
  }
  const text = withoutReasoning(content ?? '');
  if (text === '') return { ok: false, reason: 'invalid', detail: 'empty answer' };
  return { ok: true, content: text, truncated: choice.finish_reason === 'length' };
}

function errorMessage(error: unknown): string {
  if (typeof error === 'string') return error;
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  return 'error object without a message';
}

/** Reasoning models served by some compatible servers put their thinking in <think> tags first. */
function withoutReasoning(content: string): string {
  return content.replace(/<think>[\s\S]*?(?:<\/think>|$)/g, '').trim();
}
