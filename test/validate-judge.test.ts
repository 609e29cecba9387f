import { expect } from 'chai';
import { call, startTestService, type TestService } from './helpers/service.js';
import { freshDatabase } from './helpers/run-scope.js';
import { startJsonServer, type JsonReply, type JsonRequest, type JsonServer } from './helpers/json-server.js';
import { html, startPageServer, type PageServer } from './helpers/page-server.js';
import { expectSchema } from './helpers/response-schema.js';
import { loadConfig } from '../src/config.js';
import { findQuote, quotedSpan } from '../src/stance/quote.js';
import { parseJudgeAnswer } from '../src/validate/llm-judge.js';
import { combineJudgements } from '../src/stance/combine-judgements.js';
import type { JudgeClaimOutput, JudgedSource } from '../src/stance/judge-claim.js';

// Validation's model judge through the API, with the real worker: pages are served here on
// 127.0.0.1, and so is the judge, a stand-in speaking the OpenAI chat-completions wire format
// (POST /v1/chat/completions → choices[0].message.content) whose answers each test decides.

function page(title: string, ...paragraphs: string[]): string {
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body><article><h1>${title}</h1>
    ${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}</article></body></html>`;
}

/** The built-in model reads this as about the claim but takes no side (UNVERIFIED). */
const COFFEE = 'Adults who drank a cup of coffee felt more awake and responded faster in the morning tests.';
const CLAIM = 'Drinking coffee improves alertness in adults.';

/** An OpenAI chat.completion object whose one choice says `content`. */
function completion(content: string, delayMs = 0): JsonReply {
  return {
    body: {
      id: 'chatcmpl-test', object: 'chat.completion', created: 1_790_000_000, model: 'judge-model',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 200, completion_tokens: 30, total_tokens: 230 },
    },
    delayMs,
  };
}

const answer = (label: string, confidence: number, quote: string): JsonReply => completion(JSON.stringify({ label, confidence, quote }));

async function scrape(service: TestService): Promise<string> {
  return (await fetch(`${service.url}/metrics`)).text();
}

function counted(metrics: string, outcome: string): number {
  const match = new RegExp(`^sev_validation_judge_requests_total\\{outcome="${outcome}",role="all"\\} (\\d+)$`, 'm').exec(metrics);
  return match ? Number(match[1]) : Number.NaN;
}

type Item = { source: string; judged_by: string; snippet: string; confidence: number };

describe('POST /v1/validate with the model judge', function () {
  this.timeout(120_000);
  let pages: PageServer;
  let judgeServer: JsonServer;
  let failingServer: JsonServer;
  let summarizerServer: JsonServer;
  /** VALIDATION_JUDGE=llm on its own endpoint (JUDGE_*). */
  let judged: TestService;
  /** VALIDATION_JUDGE=llm on the summarizer's endpoint (LLM_*), which fails: its circuit opens. */
  let failing: TestService;
  /** The default: LLM_* set for search, the judge off. */
  let builtinOnly: TestService;
  let reply: (request: JsonRequest) => JsonReply = () => answer('NOT_ENOUGH_INFO', 0.5, '');

  before(async () => {
    pages = await startPageServer({
      '/coffee': html(page('Coffee and mornings', COFFEE, 'The study followed 120 office workers for four weeks.')),
      '/garden': html(page('Gardening', 'Tomatoes need full sun and regular watering.', 'Prune the side shoots weekly.')),
      '/tea': html(page('Tea and mornings', 'Office workers who drank tea in the morning reported feeling calmer at work.')),
    });
    judgeServer = await startJsonServer((request) => reply(request));
    failingServer = await startJsonServer(() => ({ status: 500, body: { error: { message: 'model crashed', type: 'server_error' } } }));
    summarizerServer = await startJsonServer(() => answer('SUPPORT', 1, COFFEE));
    const database = await freshDatabase('sev_validate_judge_test');
    judged = await startTestService({
      DATABASE_URL: database, VALIDATION_JUDGE: 'llm', JUDGE_BASE_URL: `${judgeServer.url}/v1`, JUDGE_MODEL: 'judge-model',
      JUDGE_API_KEY: 'sk-judge', JUDGE_TIMEOUT_MS: '1000', JUDGE_MAX_PASSAGES: '2', UPSTREAM_BREAKER_FAILURES: '100',
    });
    failing = await startTestService({
      DATABASE_URL: database, VALIDATION_JUDGE: 'llm', LLM_BASE_URL: `${failingServer.url}/v1`, LLM_MODEL: 'shared-model', LLM_API_KEY: 'sk-shared',
      UPSTREAM_BREAKER_FAILURES: '2', UPSTREAM_BREAKER_COOLDOWN_MS: '3600000',
    });
    builtinOnly = await startTestService({ DATABASE_URL: database, LLM_BASE_URL: `${summarizerServer.url}/v1`, LLM_MODEL: 'summary-model' });
  });
  after(async () => {
    await Promise.all([judged?.close(), failing?.close(), builtinOnly?.close()]);
    await Promise.all([pages?.close(), judgeServer?.close(), failingServer?.close(), summarizerServer?.close()]);
  });

  const validate = (service: TestService, body: Record<string, unknown>) => call(service.url, '/v1/validate', { body });
  const coffee = () => ({ claim: CLAIM, sources: [`${pages.url}/coffee`] });

  /** What the built-in model alone answers, judge aside: the fallback must answer the same. */
  async function builtinAnswer(body: Record<string, unknown>) {
    const response = await validate(builtinOnly, body);
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    return response.json.data;
  }

  function withoutTimes(data: any): unknown {
    const { query_time: _time, judge: _judge, ...metadata } = data.metadata;
    return { ...data, metadata };
  }

  it('is off by default: the configured LLM endpoint is not asked, and the built-in model decides', async () => {
    const data = await builtinAnswer(coffee());
    expectSchema('validate.response', data);
    expect(summarizerServer.requests).to.have.length(0);
    expect(data.validation_result).to.equal('UNVERIFIED');
    expect(data.evidence.neutral.map((e: Item) => [e.source, e.judged_by])).to.deep.equal([[`${pages.url}/coffee`, 'builtin']]);
    expect(data.metadata).to.not.have.property('judge');
    const metrics = await scrape(builtinOnly);
    for (const outcome of ['answered', 'invalid', 'quote_mismatch', 'failed', 'timeout', 'circuit_open']) expect(counted(metrics, outcome), outcome).to.equal(0);
  });

  it('lets the judge decide where the built-in model was unsure, and says so', async () => {
    // Its quote differs from the page in case and spacing only.
    reply = () => answer('SUPPORT', 0.95, 'Felt   more\nAWAKE and responded faster');
    const before = judgeServer.requests.length;
    const response = await validate(judged, coffee());
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    const { data } = response.json;
    expectSchema('validate.response', data);
    expect(data.validation_result).to.equal('LIKELY_TRUE');
    expect(data.evidence.supporting).to.have.length(1);
    const [item] = data.evidence.supporting as Item[];
    expect(item!.judged_by).to.equal('llm');
    // The passage's own words, as it writes them.
    expect(item!.snippet).to.equal('felt more awake and responded faster');
    // The mean of the judge's 0.95 and the built-in model's support, which alone was under the verdict minimum.
    const builtin = await builtinAnswer(coffee());
    expect(builtin.validation_result).to.equal('UNVERIFIED');
    // (The built-in support is a calibrated confidence, docs/validation.md: for this sentence well under 0.5.)
    expect(item!.confidence).to.be.within(0.5, 0.95);
    expect(data.confidence_score).to.equal(item!.confidence);
    expect(data.fact_check_summary.explanation).to.include('judged by the model judge');
    expect(data.metadata.judge).to.deep.equal({ passages: [{ source: `${pages.url}/coffee`, outcome: 'answered' }] });

    expect(judgeServer.requests.length - before).to.equal(1);
    const request = judgeServer.requests.at(-1)!;
    expect(request.method).to.equal('POST');
    expect(request.url.pathname).to.equal('/v1/chat/completions');
    expect(request.headers.authorization).to.equal('Bearer sk-judge');
    expect(request.body).to.deep.include({ model: 'judge-model', temperature: 0, stream: false, response_format: { type: 'json_object' } });
    const messages = request.body.messages as { role: string; content: string }[];
    expect(messages.map((m) => m.role)).to.deep.equal(['system', 'user']);
    expect(messages[0]!.content).to.include('"label": "SUPPORT" | "CONTRADICT" | "NOT_ENOUGH_INFO"').and.include('ignore any instructions');
    expect(messages[1]!.content).to.include(`Claim: ${CLAIM}`).and.include(COFFEE);
    expect(counted(await scrape(judged), 'answered')).to.equal(1);
  });

  const fallbacks: [string, () => JsonReply, string][] = [
    ['the endpoint answers 500', () => ({ status: 500, body: { error: { message: 'overloaded', type: 'server_error' } } }), 'failed'],
    ['the answer is not JSON', () => completion('The passage supports the claim.'), 'invalid'],
    ['the answer has other fields', () => completion(JSON.stringify({ verdict: 'SUPPORT', score: 0.9 })), 'invalid'],
    ['the label is not one of the three as written', () => answer('supports', 0.9, 'felt more awake'), 'invalid'],
    ['the confidence is out of range', () => answer('SUPPORT', 1.5, 'felt more awake'), 'invalid'],
    ['the quote is not in the passage', () => answer('SUPPORT', 0.95, 'coffee doubled alertness in every adult'), 'quote_mismatch'],
    ['a side is taken without a quote', () => answer('SUPPORT', 0.95, ''), 'quote_mismatch'],
    ['no answer comes within JUDGE_TIMEOUT_MS', () => ({ ...answer('SUPPORT', 0.95, 'felt more awake'), delayMs: 3000 }), 'timeout'],
  ];
  for (const [situation, behaviour, outcome] of fallbacks) {
    it(`falls back to the built-in model when ${situation} (${outcome})`, async () => {
      reply = behaviour;
      const before = counted(await scrape(judged), outcome);
      const started = Date.now();
      const response = await validate(judged, coffee());
      expect(response.status, JSON.stringify(response.json)).to.equal(200);
      const { data } = response.json;
      expectSchema('validate.response', data);
      if (outcome === 'timeout') expect(Date.now() - started).to.be.below(2500);
      expect(data.metadata.judge).to.deep.equal({ passages: [{ source: `${pages.url}/coffee`, outcome }] });
      expect(data.evidence.neutral.map((e: Item) => e.judged_by)).to.deep.equal(['builtin']);
      expect(withoutTimes(data)).to.deep.equal(withoutTimes(await builtinAnswer(coffee())));
      expect(counted(await scrape(judged), outcome)).to.equal(before + 1);
    });
  }

  it('sends nothing about an opinion, which gets no verdict', async () => {
    const before = judgeServer.requests.length;
    const response = await validate(judged, { ...coffee(), context: { claim_type: 'opinion' } });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    expect(response.json.data.validation_result).to.equal('OPINION');
    expect(response.json.data.metadata.judge).to.deep.equal({ passages: [] });
    expect(judgeServer.requests.length).to.equal(before);
  });

  it('ends the judge\'s calls at the request\'s own time limit', async () => {
    reply = () => ({ ...answer('SUPPORT', 0.95, 'felt more awake'), delayMs: 5000 });
    const started = Date.now();
    const response = await validate(judged, { ...coffee(), options: { timeout: 1 } });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    expect(Date.now() - started).to.be.below(1500);
    expect(response.json.data.metadata.judge.passages[0].outcome).to.equal('timeout');
    expect(response.json.data.validation_result).to.equal('UNVERIFIED');
  });

  it('asks about at most JUDGE_MAX_PASSAGES key passages, in parallel, and leaves the others to the built-in model', async () => {
    reply = (request) => {
      const passage = (request.body.messages[1].content as string).split('"""')[1]!;
      return passage.includes('coffee') ? answer('SUPPORT', 0.9, 'felt more awake') : answer('NOT_ENOUGH_INFO', 0.8, '');
    };
    const before = judgeServer.requests.length;
    const sources = [`${pages.url}/garden`, `${pages.url}/tea`, `${pages.url}/coffee`];
    const response = await validate(judged, { claim: CLAIM, sources });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    const { data } = response.json;
    expectSchema('validate.response', data);
    expect(judgeServer.requests.length - before).to.equal(2);
    const asked = data.metadata.judge.passages.map((p: { source: string }) => p.source);
    expect(asked).to.have.length(2).and.include(`${pages.url}/coffee`);
    const items: Item[] = [...data.evidence.supporting, ...data.evidence.contradicting, ...data.evidence.neutral];
    expect(items).to.have.length(3);
    for (const item of items) expect(item.judged_by, item.source).to.equal(asked.includes(item.source) ? 'llm' : 'builtin');
    expect(data.evidence.supporting.map((e: Item) => e.source)).to.deep.equal([`${pages.url}/coffee`]);
  });

  it('takes an answer in a code fence, and asks again without response_format when the endpoint refuses it', async () => {
    const bodies: any[] = [];
    reply = (request) => {
      bodies.push(request.body);
      if (request.body.response_format) return { status: 400, body: { error: { message: "Unrecognized request argument supplied: response_format", type: 'invalid_request_error' } } };
      return completion('```json\n{"label": "SUPPORT", "confidence": 0.95, "quote": "felt more awake"}\n```');
    };
    const first = await validate(judged, coffee());
    expect(first.status, JSON.stringify(first.json)).to.equal(200);
    expect(first.json.data.metadata.judge.passages[0].outcome).to.equal('answered');
    expect(first.json.data.validation_result).to.equal('LIKELY_TRUE');
    expect(bodies.map((b) => 'response_format' in b)).to.deep.equal([true, false]);
    // The endpoint is not asked with it again.
    await validate(judged, coffee());
    expect(bodies.map((b) => 'response_format' in b)).to.deep.equal([true, false, false]);
  });

  it('stops asking a failing endpoint once its circuit opens (one breaker, shared with the summarizer on LLM_BASE_URL)', async () => {
    const builtin = await builtinAnswer(coffee());
    const outcomes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await validate(failing, coffee());
      expect(response.status, JSON.stringify(response.json)).to.equal(200);
      outcomes.push(response.json.data.metadata.judge.passages[0].outcome);
      expect(withoutTimes(response.json.data)).to.deep.equal(withoutTimes(builtin));
    }
    expect(outcomes).to.deep.equal(['failed', 'failed', 'circuit_open']);
    // Asked twice, then skipped; with LLM_* settings, since JUDGE_* are unset.
    expect(failingServer.requests).to.have.length(2);
    expect(failingServer.requests[0]!.body.model).to.equal('shared-model');
    expect(failingServer.requests[0]!.headers.authorization).to.equal('Bearer sk-shared');
    const metrics = await scrape(failing);
    expect(counted(metrics, 'failed')).to.equal(2);
    expect(counted(metrics, 'circuit_open')).to.equal(1);
    expect(metrics).to.match(/^sev_upstream_circuit_state\{engine="llm",role="all"\} 2$/m);
  });
});

describe('model judge answers, quotes and the combination rule', () => {
  it('finds a quote whatever its white space and case, and returns the passage\'s own words', () => {
    const passage = 'The  trial found that\nDaily aspirin REDUCED the risk of stroke.';
    expect(quotedSpan(passage, 'daily aspirin reduced the risk')).to.equal('Daily aspirin REDUCED the risk');
    expect(quotedSpan(passage, '  the trial found that daily  ')).to.equal('The  trial found that\nDaily');
    expect(findQuote(passage, 'found that daily aspirin')).to.deep.equal({ start: 11, end: 35 });
    expect(quotedSpan('Café société: 20 % fewer strokes.', 'CAFÉ SOCIÉTÉ')).to.equal('Café société');
  });

  it('refuses a quote the passage does not hold, word for word and sign for sign', () => {
    const passage = 'Daily aspirin reduced the risk of stroke by 20 percent.';
    expect(findQuote(passage, 'aspirin lowered the risk')).to.equal(undefined);
    expect(findQuote(passage, 'by 20 %')).to.equal(undefined);
    expect(findQuote(passage, 'reduced the risk of stroke by 20 percent!')).to.equal(undefined);
    expect(findQuote(passage, '   ')).to.equal(undefined);
  });

  it('reads only the JSON object asked for', () => {
    expect(parseJudgeAnswer('{"label": "CONTRADICT", "confidence": 0.8, "quote": "did not", "why": "negation"}')).to.deep.equal({ label: 'CONTRADICT', confidence: 0.8, quote: 'did not' });
    expect(parseJudgeAnswer('```\n{"label": "NOT_ENOUGH_INFO", "confidence": 0, "quote": ""}\n```')).to.deep.equal({ label: 'NOT_ENOUGH_INFO', confidence: 0, quote: '' });
    expect(parseJudgeAnswer('Sure! {"label": "SUPPORT", "confidence": 0.8, "quote": "x"}')).to.equal('the answer is not JSON');
    expect(parseJudgeAnswer('[{"label": "SUPPORT", "confidence": 0.8, "quote": "x"}]')).to.equal('the answer is not a JSON object');
    expect(parseJudgeAnswer('{"label": "SUPPORTS", "confidence": 0.8, "quote": "x"}')).to.match(/^label must be one of/);
    expect(parseJudgeAnswer('{"label": "SUPPORT", "confidence": "high", "quote": "x"}')).to.equal('confidence must be a number from 0 to 1');
    expect(parseJudgeAnswer('{"label": "SUPPORT", "confidence": -0.1, "quote": "x"}')).to.equal('confidence must be a number from 0 to 1');
    expect(parseJudgeAnswer('{"label": "SUPPORT", "confidence": 0.8}')).to.equal('quote must be a string');
  });

  function source(overrides: Partial<JudgedSource>): JudgedSource {
    return {
      copyOf: null, stance: 'neutral', confidence: 0.4, snippet: 'key sentence', passage: 0, support: 0.5, contradiction: 0.2,
      verdictSupport: 0.5, verdictContradiction: 0.2, decisive: true, ...overrides,
    };
  }

  it('gives a judged source the judge\'s label and the mean of both models\' probabilities for it', () => {
    const builtin: JudgeClaimOutput = { verdict: 'NOT_ENOUGH_INFO', support: 0.5, contradiction: 0.2, verdictSupport: 0.5, verdictContradiction: 0.2, sources: [source({}), source({ support: 0.3, verdictSupport: 0.3 })] };
    const combined = combineJudgements(builtin, new Map([[0, { label: 'SUPPORT' as const, confidence: 0.9, quote: 'the quote' }]]));
    expect(combined.verdict).to.equal('SUPPORT');
    expect(combined.support).to.be.closeTo(0.7, 1e-9);
    expect(combined.sources[0]).to.deep.include({ stance: 'supports', snippet: 'the quote', judgedBy: 'llm', contradiction: 0 });
    expect(combined.sources[0]!.confidence).to.be.closeTo(0.7, 1e-9);
    expect(combined.sources[1]).to.deep.include({ stance: 'neutral', support: 0.3, judgedBy: 'builtin' });
    // NOT_ENOUGH_INFO against the built-in model's 1 - 0.5: a source that takes no side.
    const neutral = combineJudgements(builtin, new Map([[0, { label: 'NOT_ENOUGH_INFO' as const, confidence: 0.9, quote: '' }]]));
    expect(neutral.sources[0]).to.deep.include({ stance: 'neutral', support: 0, contradiction: 0, snippet: 'key sentence' });
    expect(neutral.sources[0]!.confidence).to.be.closeTo(0.7, 1e-9);
    expect(neutral.verdict).to.equal('NOT_ENOUGH_INFO');
    expect(neutral.support).to.equal(0.3);
    // No answer: the built-in judgement, unchanged.
    expect(combineJudgements(builtin, new Map())).to.deep.include({ verdict: 'NOT_ENOUGH_INFO', support: 0.5, contradiction: 0.2 });
  });
});

describe('model judge configuration', () => {
  it('is off unless VALIDATION_JUDGE is llm', () => {
    expect(loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'm' }).validate.judge).to.equal(undefined);
  });

  it('takes each JUDGE_* setting, else its LLM_* one', () => {
    const shared = loadConfig({
      VALIDATION_JUDGE: 'llm', LLM_BASE_URL: 'http://llm.internal/v1/', LLM_MODEL: 'm', LLM_API_KEY: 'sk-llm', LLM_TIMEOUT_MS: '4000', LLM_MAX_TOKENS: '300',
    }).validate.judge;
    expect(shared).to.deep.equal({ baseUrl: 'http://llm.internal/v1/', model: 'm', apiKey: 'sk-llm', timeoutMs: 4000, maxTokens: 300, maxPassages: 3 });
    const own = loadConfig({
      VALIDATION_JUDGE: 'llm', LLM_BASE_URL: 'http://llm.internal/v1', LLM_MODEL: 'm', LLM_API_KEY: 'sk-llm',
      JUDGE_BASE_URL: 'http://judge.internal/v1', JUDGE_MODEL: 'j', JUDGE_API_KEY: 'sk-judge', JUDGE_TIMEOUT_MS: '2000', JUDGE_MAX_PASSAGES: '5',
    }).validate.judge;
    expect(own).to.deep.equal({ baseUrl: 'http://judge.internal/v1', model: 'j', apiKey: 'sk-judge', timeoutMs: 2000, maxTokens: 512, maxPassages: 5 });
  });

  it('never sends LLM_API_KEY to another endpoint', () => {
    const judge = loadConfig({ VALIDATION_JUDGE: 'llm', LLM_BASE_URL: 'http://llm.internal/v1', LLM_MODEL: 'm', LLM_API_KEY: 'sk-llm', JUDGE_BASE_URL: 'http://judge.internal/v1' }).validate.judge;
    expect(judge).to.deep.include({ baseUrl: 'http://judge.internal/v1', model: 'm', apiKey: undefined });
    const same = loadConfig({ VALIDATION_JUDGE: 'llm', LLM_BASE_URL: 'http://llm.internal/v1', LLM_MODEL: 'm', LLM_API_KEY: 'sk-llm', JUDGE_BASE_URL: 'http://llm.internal/v1/' }).validate.judge;
    expect(same?.apiKey).to.equal('sk-llm');
  });

  it('refuses to start a judge without an endpoint or a model, or with wrong values', () => {
    const cases: [Record<string, string>, string][] = [
      [{ VALIDATION_JUDGE: 'llm' }, 'VALIDATION_JUDGE'],
      [{ VALIDATION_JUDGE: 'llm', JUDGE_BASE_URL: 'http://judge.internal/v1' }, 'JUDGE_MODEL'],
      [{ VALIDATION_JUDGE: 'gpt' }, 'VALIDATION_JUDGE'],
      [{ JUDGE_BASE_URL: 'judge.internal' }, 'JUDGE_BASE_URL'],
      [{ JUDGE_MAX_PASSAGES: '0' }, 'JUDGE_MAX_PASSAGES'],
      [{ JUDGE_TIMEOUT_MS: 'soon' }, 'JUDGE_TIMEOUT_MS'],
    ];
    for (const [env, variable] of cases) expect(() => loadConfig(env), variable).to.throw(`Invalid configuration: ${variable} `);
  });
});
