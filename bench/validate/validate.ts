/**
 * POST /v1/validate on SciFact's 300 dev claims through the whole API (HTTP, auth, limits,
 * audit, queue, workers, pool), with API, workers and a 2-thread pool in one process. Not a
 * test: it prints figures and asserts nothing.
 *
 *   npm run build && node dist/bench/validate/validate.js           load the SciFact corpus through the API, then measure
 *   node dist/bench/validate/validate.js --reuse                     use the corpus loaded by an earlier run (of this or bench/search)
 *
 * The corpus goes into its own database (SEARCH_BENCH_DATABASE, default sev_bench_search, shared
 * with bench/search), in the sandbox of a test-mode key. Two runs over the dev claims:
 *  - without `sources`: the service finds its own evidence in the index;
 *  - with the abstracts each claim cites passed as `sources`, served as pages by a local server,
 *    so retrieval errors and stance errors can be told apart.
 * Each runs twice: with default options (as a client that sets none is answered) and with the
 * model's own verdict (options.confidence_threshold 0), whose answers also give the table of what
 * each threshold trades (verdicts given against their precision). Results map to SciFact's
 * labels: VERIFIED and LIKELY_TRUE → SUPPORT; FALSE and LIKELY_FALSE → CONTRADICT; DISPUTED →
 * the side of the more confident evidence item; UNVERIFIED, and a claim refused as vague or
 * without readable sources → NOT_ENOUGH_INFO. Printed: accuracy, per-label precision, recall and
 * F1, macro-F1 (always answering SUPPORT scores about 0.19), evidence recall (claims with gold
 * evidence whose evidence items include a gold abstract) and latency. Then the out-of-domain set
 * (ood-claims.ts, bench/validate/ood/), reported apart, as `npm run bench:validate:ood` prints it.
 * Data: BENCH_DATA or ../shared/data.
 */
import { appendFileSync } from 'node:fs';
import http from 'node:http';
import { TEST_KEY } from '../../test/helpers/service.js';
import { startValidateBench } from './bench-service.js';
import { createDatabase, databaseUrl as urlOf } from '../../test/helpers/database.js';
import { apiDocument, loadCorpus, scifactId } from '../index/scifact.js';
import { percentile } from '../percentile.js';
import { answerLabel, classification, confusionLines, loadClaims, tradeOff, type SciFactClaim } from './scifact-claims.js';
import { runOodBench } from './ood-claims.js';

const REUSE = process.argv.includes('--reuse');
// --split train measures on the training claims instead: for choices made without looking at dev.
const SPLIT = process.argv.includes('--split') ? process.argv[process.argv.indexOf('--split') + 1] as 'train' | 'dev' : 'dev';
const DATABASE_NAME = process.env.SEARCH_BENCH_DATABASE ?? 'sev_bench_search';
const SERVER = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
const CONCURRENCY = 4;
// VALIDATE_DUMP=<file>: each answer appended as a JSON line (run, claim, gold and predicted labels, the answer), to read the errors of the split measured.
const DUMP = process.env.VALIDATE_DUMP;

const databaseUrl = REUSE
  ? urlOf(SERVER, DATABASE_NAME)
  : await createDatabase(SERVER, DATABASE_NAME);
const bench = await startValidateBench(databaseUrl, CONCURRENCY);
const post = bench.post;

const key: string = (await post('/v1/auth/keys', { name: 'bench-validate', mode: 'test' }, TEST_KEY)).data.key;
const corpus = loadCorpus();
if (!REUSE) {
  const started = performance.now();
  for (let i = 0; i < corpus.length; i += 50) {
    const documents = corpus.slice(i, i + 50).map(apiDocument);
    await post('/v1/index/documents', { documents }, key);
  }
  console.log(`SciFact loaded through POST /v1/index/documents: ${corpus.length} documents in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

// The cited abstracts as pages, for the run with sources.
const abstracts = new Map(corpus.map((doc) => [doc.id, doc]));
const pages = http.createServer((req, res) => {
  const doc = abstracts.get(decodeURIComponent(req.url ?? '').replace(/^\/doc\//, ''));
  if (!doc) return res.writeHead(404).end();
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="en"><head><title>${escape(doc.title)}</title></head>`
    + `<body><article><h1>${escape(doc.title)}</h1>${doc.sentences.map((s) => `<p>${escape(s)}</p>`).join('')}</article></body></html>`);
});
await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
const pagesUrl = `http://127.0.0.1:${(pages.address() as { port: number }).port}`;

const claims = loadClaims(SPLIT);

async function run(name: string, body: (claim: SciFactClaim) => Record<string, unknown>, options: Record<string, unknown> | undefined) {
  const pending = [...claims];
  const results: { claim: SciFactClaim; answer: any; ms: number }[] = [];
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    for (let claim = pending.shift(); claim; claim = pending.shift()) {
      const t = performance.now();
      const answer = await post('/v1/validate', { ...body(claim), ...(options ? { options } : {}) }, key);
      results.push({ claim, answer, ms: performance.now() - t });
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  const pairs = results.map((r) => ({ gold: r.claim.label, predicted: answerLabel(r.answer) }));
  const report = classification(pairs);
  const withEvidence = results.filter((r) => Object.keys(r.claim.evidence).length > 0);
  const found = withEvidence.filter((r) => {
    if (!r.answer.success) return false;
    const items = [...r.answer.data.evidence.supporting, ...r.answer.data.evidence.contradicting, ...r.answer.data.evidence.neutral] as { source: string }[];
    return items.some((item) => Object.keys(r.claim.evidence).includes(scifactId(item.source)));
  });
  const latencies = results.map((r) => r.ms).sort((a, b) => a - b);
  const errors = results.filter((r) => !r.answer.success).map((r) => r.answer.error.code as string);
  console.log(`\n${name}: ${results.length} ${SPLIT} claims in ${seconds.toFixed(0)} s (concurrency ${CONCURRENCY}); answered with an error: ${errors.length}`
    + (errors.length ? ` (${[...new Set(errors)].map((c) => `${c} ${errors.filter((e) => e === c).length}`).join(', ')})` : ''));
  console.log(`  accuracy ${report.accuracy.toFixed(3)}, macro-F1 ${report.macroF1.toFixed(3)}`);
  for (const l of report.perLabel) console.log(`  ${l.label.padEnd(16)} P ${l.precision.toFixed(3)} R ${l.recall.toFixed(3)} F1 ${l.f1.toFixed(3)}`);
  for (const line of confusionLines(pairs)) console.log(line);
  console.log(`  evidence recall: ${found.length} of ${withEvidence.length} claims with gold evidence have a gold abstract among the evidence items (${(found.length / withEvidence.length).toFixed(3)})`);
  console.log(`  latency through the API: p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms`);
  if (DUMP) appendFileSync(DUMP, results.map((r) => JSON.stringify({ run: name, id: r.claim.id, claim: r.claim.claim, gold: r.claim.label, predicted: answerLabel(r.answer), answer: r.answer.success ? r.answer.data : r.answer.error })).join('\n') + '\n');
  const verdicts = results.filter((r) => r.answer.success).map((r) => r.answer.data.validation_result as string);
  console.log(`  UNVERIFIED: ${verdicts.filter((v) => v === 'UNVERIFIED').length} of ${results.length}`);
  if (options?.confidence_threshold === 0) {
    console.log('  what a confidence_threshold would trade (from these answers):');
    for (const line of tradeOff(results.map((r) => ({ gold: r.claim.label, answer: r.answer })))) console.log(line);
  }
}

const withoutSources = (claim: SciFactClaim) => ({ claim: claim.claim });
const withCited = (claim: SciFactClaim) => ({ claim: claim.claim, sources: [...new Set(claim.cited_doc_ids)].map((id) => `${pagesUrl}/doc/${id}`) });
await run('without sources (the index finds the evidence), default options', withoutSources, undefined);
await run('without sources (the index finds the evidence), confidence_threshold 0', withoutSources, { confidence_threshold: 0 });
await run('with the cited abstracts as sources (local pages), default options', withCited, undefined);
await run('with the cited abstracts as sources (local pages), confidence_threshold 0', withCited, { confidence_threshold: 0 });

// The out-of-domain set, reported apart from SciFact (ood-claims.ts): with a live key, whose index here is empty.
const liveKey: string = (await post('/v1/auth/keys', { name: 'bench-validate-ood', mode: 'live' }, TEST_KEY)).data.key;
await runOodBench(post, liveKey, CONCURRENCY);

pages.close();
await bench.close();
