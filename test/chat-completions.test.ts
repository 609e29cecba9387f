import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.js';
import { createMetrics, type Metrics } from '../src/metrics/metrics.js';
import { createChatCompletionsSummarizer, type Passage, type Summarizer, type SummaryOutcome } from '../src/search/summarizer/chat-completions.js';
import { checkCitations, renderCited } from '../src/search/summarizer/citations.js';

// The only server contacted is the one this file starts on 127.0.0.1, speaking the OpenAI
// chat-completions wire format (POST /v1/chat/completions → choices[0].message.content).

interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

type Reply = (res: http.ServerResponse) => void;

interface FakeLlm {
  url: string;
  received: Received[];
  reply: Reply;
  close(): Promise<void>;
}

async function startFakeLlm(): Promise<FakeLlm> {
  const fake: FakeLlm = { url: '', received: [], reply: completion('Nothing [1].'), close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      fake.received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
      });
      fake.reply(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

function send(status: number, body: unknown, delayMs = 0): Reply {
  return (res) => {
    const timer = setTimeout(() => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    }, delayMs);
    res.on('close', () => clearTimeout(timer));
  };
}

/** An OpenAI chat.completion object whose one choice says `content`. */
function completion(content: string | null, finishReason = 'stop', delayMs = 0): Reply {
  return send(200, {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_790_000_000,
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
    usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 },
  }, delayMs);
}

const PASSAGES: Passage[] = [
  { n: 1, title: 'Solid-state batteries explained', url: 'https://example.com/ssb', text: 'A solid-state battery uses a solid electrolyte instead of a liquid one.' },
  { n: 2, title: 'Energy density', url: 'https://example.org/density', text: 'Solid electrolytes allow lithium-metal anodes, raising energy density.' },
  { n: 3, title: 'Manufacturing hurdles', url: 'https://example.net/cost', text: 'Producing thin ceramic separators at scale remains expensive.' },
];
const QUERY = 'why are solid-state batteries promising';

function summarizer(fake: FakeLlm, metrics: Metrics, env: Record<string, string> = {}): Summarizer {
  const config = loadConfig({ LLM_BASE_URL: `${fake.url}/v1`, LLM_MODEL: 'test-model', LLM_API_KEY: 'sk-test-secret', LLM_TIMEOUT_MS: '300', ...env });
  const created = createChatCompletionsSummarizer(config, metrics);
  if (!created) throw new Error('LLM_BASE_URL was set, a summarizer was expected');
  return created;
}

async function counted(metrics: Metrics, outcome: string): Promise<number> {
  return (await metrics.summarizerRequests.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

function failed(outcome: SummaryOutcome): { reason: string; detail: string } {
  if (outcome.ok) throw new Error(`expected a failure, got the summary "${outcome.summary}"`);
  return outcome;
}

describe('chat-completions summarizer', () => {
  let fake: FakeLlm;
  let metrics: Metrics;

  beforeEach(async () => {
    fake = await startFakeLlm();
    metrics = createMetrics('all');
  });
  afterEach(async () => {
    await fake.close();
  });

  it('is disabled without LLM_BASE_URL', () => {
    expect(createChatCompletionsSummarizer(loadConfig({}), metrics)).to.equal(undefined);
  });

  it('sends the model, the rules and the numbered passages, with the key as a bearer token', async () => {
    fake.reply = completion('A solid electrolyte replaces the liquid one [1].');
    await summarizer(fake, metrics).summarize({ query: QUERY, passages: PASSAGES, language: 'en' });
    expect(fake.received).to.have.length(1);
    const { method, path, headers, body } = fake.received[0]!;
    expect(method).to.equal('POST');
    expect(path).to.equal('/v1/chat/completions');
    expect(headers.authorization).to.equal('Bearer sk-test-secret');
    expect(headers['content-type']).to.equal('application/json');
    expect(body).to.deep.include({ model: 'test-model', temperature: 0, max_tokens: 512, stream: false });
    const messages = body.messages as Array<{ role: string; content: string }>;
    expect(messages.map((m) => m.role)).to.deep.equal(['system', 'user']);
    const system = messages[0]!;
    const user = messages[1]!;
    expect(system.content).to.include('only the numbered passages');
    expect(system.content).to.include('Cite only these passage numbers: 1, 2, 3.');
    expect(system.content).to.include('Write in English.');
    expect(user.content).to.include(`Question: ${QUERY}`);
    for (const passage of PASSAGES) {
      expect(user.content).to.include(`[${passage.n}] ${passage.title}\nURL: ${passage.url}\n${passage.text}`);
    }
  });

  it('sends no Authorization header without LLM_API_KEY', async () => {
    const config = loadConfig({ LLM_BASE_URL: `${fake.url}/v1/`, LLM_MODEL: 'local', LLM_MAX_TOKENS: '200' });
    await createChatCompletionsSummarizer(config, metrics)!.summarize({ query: QUERY, passages: PASSAGES });
    const { path, headers, body } = fake.received[0]!;
    expect(path).to.equal('/v1/chat/completions');
    expect(headers).to.not.have.property('authorization');
    expect(body).to.deep.include({ model: 'local', max_tokens: 200 });
    expect((body.messages as Array<{ content: string }>)[0]!.content).to.not.include('Write in');
  });

  it('returns a good answer with its citations', async () => {
    fake.reply = completion('Solid-state batteries replace the liquid electrolyte with a solid one [1]. '
      + 'That allows lithium-metal anodes and a higher energy density [2], [3].\n\nCost is still a hurdle. [3]');
    const outcome = await summarizer(fake, metrics).summarize({ query: QUERY, passages: PASSAGES });
    if (!outcome.ok) throw new Error(`expected a summary, got ${outcome.reason}: ${outcome.detail}`);
    expect(outcome.citations).to.deep.equal([1, 2, 3]);
    expect(outcome.dropped).to.equal(0);
    expect(outcome.sentences).to.deep.equal([
      { text: 'Solid-state batteries replace the liquid electrolyte with a solid one.', citations: [1] },
      { text: 'That allows lithium-metal anodes and a higher energy density.', citations: [2, 3] },
      { text: 'Cost is still a hurdle.', citations: [3] },
    ]);
    expect(outcome.summary).to.equal('Solid-state batteries replace the liquid electrolyte with a solid one [1]. '
      + 'That allows lithium-metal anodes and a higher energy density [2][3]. Cost is still a hurdle [3].');
    expect(await counted(metrics, 'ok')).to.equal(1);
  });

  it('drops a sentence citing a passage that was not given, and keeps the rest', async () => {
    fake.reply = completion('Solid electrolytes replace liquid ones [1]. They will power every car by 2027 [7]. Costs fall fast.');
    const outcome = await summarizer(fake, metrics).summarize({ query: QUERY, passages: PASSAGES });
    if (!outcome.ok) throw new Error(`expected a summary, got ${outcome.reason}: ${outcome.detail}`);
    expect(outcome.summary).to.equal('Solid electrolytes replace liquid ones [1].');
    expect(outcome.citations).to.deep.equal([1]);
    expect(outcome.dropped).to.equal(2);
  });

  it('fails when no sentence keeps a valid citation, or the model found no answer', async () => {
    const s = summarizer(fake, metrics);
    fake.reply = completion('Batteries will power every car [7]. Also planes [0].');
    expect(failed(await s.summarize({ query: QUERY, passages: PASSAGES })).reason).to.equal('invalid');
    fake.reply = completion('Solid-state batteries are promising because they are safer.');
    expect(failed(await s.summarize({ query: QUERY, passages: PASSAGES })).reason).to.equal('invalid');
    fake.reply = completion('NO ANSWER');
    expect(failed(await s.summarize({ query: QUERY, passages: PASSAGES })).reason).to.equal('invalid');
    fake.reply = completion('   ');
    expect(failed(await s.summarize({ query: QUERY, passages: PASSAGES }))).to.deep.equal({ ok: false, reason: 'invalid', detail: 'empty answer' });
    fake.reply = completion(null);
    expect(failed(await s.summarize({ query: QUERY, passages: PASSAGES })).reason).to.equal('invalid');
    expect(await counted(metrics, 'invalid')).to.equal(5);
    expect(s.circuitState(), 'unusable answers are no failure of the endpoint').to.equal('closed');
  });

  it('reports an error object, with or without an error status', async () => {
    const s = summarizer(fake, metrics);
    fake.reply = send(200, { error: { message: 'The model is overloaded', type: 'server_error', code: null } });
    expect(failed(await s.summarize({ query: QUERY, passages: PASSAGES }))).to.deep.equal({ ok: false, reason: 'error', detail: 'The model is overloaded' });
    fake.reply = send(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
    expect(failed(await s.summarize({ query: QUERY, passages: PASSAGES }))).to.deep.equal({ ok: false, reason: 'error', detail: 'HTTP 401: Incorrect API key provided' });
    expect(await counted(metrics, 'error')).to.equal(2);
  });

  it('reports HTTP 500, malformed JSON and an answer without choices as errors', async () => {
    const s = summarizer(fake, metrics, { UPSTREAM_BREAKER_FAILURES: '10' });
    fake.reply = send(500, 'Internal Server Error');
    expect(failed(await s.summarize({ query: QUERY, passages: PASSAGES })).detail).to.match(/^HTTP 500, response is not JSON/);
    fake.reply = send(500, {});
    expect(failed(await s.summarize({ query: QUERY, passages: PASSAGES }))).to.deep.equal({ ok: false, reason: 'error', detail: 'HTTP 500' });
    fake.reply = send(200, '{"choices": [{"message": ');
    expect(failed(await s.summarize({ query: QUERY, passages: PASSAGES })).reason).to.equal('error');
    fake.reply = send(200, { object: 'chat.completion', choices: [] });
    expect(failed(await s.summarize({ query: QUERY, passages: PASSAGES })).detail).to.equal('answer has no choices[0].message');
    fake.reply = send(200, { choices: [{ message: { role: 'assistant', content: [{ type: 'text' }] } }] });
    expect(failed(await s.summarize({ query: QUERY, passages: PASSAGES })).reason).to.equal('error');
    expect(await counted(metrics, 'error')).to.equal(5);
  });

  it('gives up on a slow answer at LLM_TIMEOUT_MS', async () => {
    fake.reply = completion('Late but valid [1].', 'stop', 3000);
    const started = Date.now();
    const outcome = await summarizer(fake, metrics).summarize({ query: QUERY, passages: PASSAGES });
    expect(failed(outcome).reason).to.equal('timeout');
    expect(Date.now() - started).to.be.within(250, 1000);
    expect(await counted(metrics, 'timeout')).to.equal(1);
  });

  it('gives up at the caller\'s deadline when it comes first', async () => {
    fake.reply = completion('Late but valid [1].', 'stop', 3000);
    const started = Date.now();
    const outcome = await summarizer(fake, metrics, { LLM_TIMEOUT_MS: '10000' }).summarize({ query: QUERY, passages: PASSAGES, signal: AbortSignal.timeout(100) });
    expect(failed(outcome).reason).to.equal('aborted');
    expect(Date.now() - started).to.be.below(1000);
  });

  it('drops the unfinished last sentence of an answer cut by the token limit', async () => {
    fake.reply = completion('Solid electrolytes replace liquid ones [1]. They allow lithium-metal anodes [2] and', 'length');
    const outcome = await summarizer(fake, metrics).summarize({ query: QUERY, passages: PASSAGES });
    expect(outcome).to.deep.include({ ok: true, summary: 'Solid electrolytes replace liquid ones [1].', dropped: 1 });
  });

  it('stops calling a failing endpoint once its circuit opens', async () => {
    fake.reply = send(503, { error: { message: 'unavailable' } });
    const s = summarizer(fake, metrics, { UPSTREAM_BREAKER_FAILURES: '2' });
    await s.summarize({ query: QUERY, passages: PASSAGES });
    await s.summarize({ query: QUERY, passages: PASSAGES });
    expect(failed(await s.summarize({ query: QUERY, passages: PASSAGES })).reason).to.equal('circuit_open');
    expect(fake.received).to.have.length(2);
    expect(s.circuitState()).to.equal('open');
    expect((await metrics.upstreamCircuitState.get()).values.find((v) => v.labels.engine === 'llm')?.value).to.equal(2);
    expect(await counted(metrics, 'rejected_open')).to.equal(1);
  });

  it('does not call the endpoint without passages', async () => {
    expect(failed(await summarizer(fake, metrics).summarize({ query: QUERY, passages: [] })).reason).to.equal('invalid');
    expect(fake.received).to.have.length(0);
  });
});

describe('citation rule', () => {
  const allowed = new Set([1, 2, 3]);

  it('keeps abbreviations, decimals and host names inside one sentence', () => {
    const { sentences } = checkCitations('Smith et al. measured 3.5 times the density, e.g. in cells from example.com [2]. Cost rose [3].', allowed, false);
    expect(sentences.map((s) => s.citations)).to.deep.equal([[2], [3]]);
    expect(sentences[0]!.text).to.equal('Smith et al. measured 3.5 times the density, e.g. in cells from example.com.');
  });

  it('reads lists and ranges of citations, and rejects absurd ranges', () => {
    expect(checkCitations('All three agree [1-3].', allowed, false).sentences[0]!.citations).to.deep.equal([1, 2, 3]);
    expect(checkCitations('Two agree [1; 3].', allowed, false).sentences[0]!.citations).to.deep.equal([1, 3]);
    expect(checkCitations('Everything [1-500].', new Set(Array.from({ length: 500 }, (_, i) => i + 1)), false).sentences).to.deep.equal([]);
  });

  it('gives citations written after the full stop to the sentence before them', () => {
    const { sentences } = checkCitations('Cost is a hurdle. [2], [3] Prices   fall [1].', allowed, false);
    expect(sentences).to.deep.equal([{ text: 'Cost is a hurdle.', citations: [2, 3] }, { text: 'Prices fall.', citations: [1] }]);
  });

  it('treats bullet items as sentences, joins wrapped lines and drops uncited headings', () => {
    const { sentences, dropped } = checkCitations('## Summary\nSolid electrolytes replace\nliquid ones [1].\n\n- They are safer [1]\n- They cost more [3]', allowed, false);
    expect(renderCited(sentences)).to.equal('Solid electrolytes replace liquid ones [1]. They are safer [1]. They cost more [3].');
    expect(dropped).to.equal(1);
  });

  it('splits sentences ending in CJK full stops', () => {
    const { sentences } = checkCitations('固体电池更安全[1]。成本仍然很高[3]。', allowed, false);
    expect(sentences).to.deep.equal([{ text: '固体电池更安全。', citations: [1] }, { text: '成本仍然很高。', citations: [3] }]);
    expect(renderCited(sentences)).to.equal('固体电池更安全[1]。 成本仍然很高[3]。');
  });
});
