/**
 * The OpenAI-compatible chat-completions endpoints the operator configures (LLM_BASE_URL for
 * search's summaries, JUDGE_BASE_URL or the same for validation's judge): one request, one
 * answer (choices[0].message.content), every problem returned as { ok: false } rather than
 * thrown. Each endpoint has one circuit breaker per process, shared by every client of it: the
 * summarizer and the judge on one server open and close one circuit.
 *
 * The endpoint is called directly, not through the page fetcher's address guard, for the reason
 * given in json-request.ts: it is configured by the operator, not by clients.
 */
import type { Config, LlmConfig } from '../../config.js';
import type { Metrics } from '../../metrics/metrics.js';
import { isRecord } from '../../json-record.js';
import { settleCall, type CircuitBreaker, type CircuitState } from './circuit-breaker.js';
import { requestJson, transportFailure, type JsonOutcome } from './json-request.js';
import { monitoredBreaker } from './monitored-breaker.js';

const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/**
 * timeout: no answer within the client's timeoutMs; aborted: the caller's signal ended the call;
 * error: transport failure, non-2xx status, an error object, unreadable JSON, no message;
 * invalid: an answer, but an empty one; circuit_open: not attempted after repeated failures.
 */
export type ChatFailure = 'timeout' | 'aborted' | 'error' | 'invalid' | 'circuit_open';

export type ChatAnswer =
  | { readonly ok: true; readonly content: string; readonly truncated: boolean }
  | { readonly ok: false; readonly reason: ChatFailure; readonly detail: string };

export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  /**
   * Ask for a JSON object (`response_format: {"type": "json_object"}`). An endpoint that refuses
   * the field (a 4xx naming response_format) is asked again without it, and not asked with it
   * again; one that ignores it answers as it likes, so the caller checks the content anyway.
   */
  readonly json?: boolean;
  /** The caller's deadline: the call ends when it aborts, even before the client's timeoutMs. */
  readonly signal?: AbortSignal | undefined;
}

export interface ChatClient {
  complete(request: ChatRequest): Promise<ChatAnswer>;
  circuitState(): CircuitState;
}

/** One endpoint's shared state: its breaker, and whether it takes response_format. */
interface Endpoint {
  readonly breaker: CircuitBreaker;
  jsonMode: boolean;
}

/**
 * The chat-completions endpoints of one process, each with its breaker (UPSTREAM_BREAKER_*,
 * labelled in sev_upstream_circuit_state by the first client's name).
 */
export class ChatEndpoints {
  private readonly endpoints = new Map<string, Endpoint>();

  constructor(private readonly config: Pick<Config, 'upstreamBreaker' | 'fetch'>, private readonly metrics: Metrics) {}

  /** A client of `settings`' endpoint; `engine` names the breaker if this is the endpoint's first client. */
  client(settings: LlmConfig, engine: string): ChatClient {
    const url = chatCompletionsUrl(settings.baseUrl);
    let endpoint = this.endpoints.get(url.href);
    if (!endpoint) {
      endpoint = { breaker: monitoredBreaker(engine, this.config.upstreamBreaker, this.metrics), jsonMode: true };
      this.endpoints.set(url.href, endpoint);
    }
    return chatClient(url, settings, this.config.fetch.userAgent, endpoint);
  }
}

/** `{baseUrl}/chat/completions`, whatever slashes the base URL ends in. */
export function chatCompletionsUrl(baseUrl: string): URL {
  const endpoint = new URL(baseUrl);
  endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, '')}/chat/completions`;
  return endpoint;
}

function chatClient(url: URL, settings: LlmConfig, userAgent: string, endpoint: Endpoint): ChatClient {
  const headers: Record<string, string> = { 'user-agent': userAgent };
  if (settings.apiKey !== undefined) headers.authorization = `Bearer ${settings.apiKey}`;
  const send = (request: ChatRequest, json: boolean) => requestJson(url, {
    method: 'POST',
    headers,
    body: {
      model: settings.model,
      messages: request.messages,
      temperature: 0,
      max_tokens: settings.maxTokens,
      stream: false,
      ...(json ? { response_format: { type: 'json_object' } } : {}),
    },
    timeoutMs: settings.timeoutMs,
    signal: request.signal,
    maxBytes: MAX_RESPONSE_BYTES,
  });

  return {
    circuitState: () => endpoint.breaker.state(),
    async complete(request) {
      const permit = endpoint.breaker.tryAcquire();
      if (!permit) return { ok: false, reason: 'circuit_open', detail: 'the circuit of this endpoint is open after repeated failures' };
      const json = request.json === true && endpoint.jsonMode;
      let response = await send(request, json);
      if (json && refusesResponseFormat(response)) {
        endpoint.jsonMode = false;
        response = await send(request, false);
      }
      const answer = readAnswer(response);
      // An answer, even an empty one, shows the endpoint works; whether it is usable is the caller's matter.
      if (answer.ok || answer.reason === 'invalid') permit.success();
      else settleCall(permit, answer.reason);
      return answer;
    },
  };
}

/** A 4xx whose error names response_format: a server that does not take the field. */
function refusesResponseFormat(response: JsonOutcome): boolean {
  if (response.kind === 'timeout' || response.kind === 'aborted' || response.kind === 'error') return false;
  if (response.status < 400 || response.status > 499) return false;
  const said = response.kind === 'json' ? JSON.stringify(response.value) : response.detail;
  return /response_format|json_object/i.test(said);
}

/** choices[0].message.content of an OpenAI-format answer, or why there is none. */
function readAnswer(response: JsonOutcome): ChatAnswer {
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
