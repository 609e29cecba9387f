import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';
import { percentile } from '../percentile.js';
import { answerLabel, classification, CLAIM_LABELS, confusionLines, tradeOff, type ClaimLabel } from './scifact-claims.js';

/**
 * The out-of-domain stance set (bench/validate/ood/README.md): short popular claims in six fields,
 * each with 1 to 5 passages, labelled by hand. Sent to POST /v1/validate with every passage as
 * a source of its own (a page served from 127.0.0.1), once with default options and once with
 * `confidence_threshold` 0, and reported apart from SciFact: macro-F1, per-label precision, recall
 * and F1, the confusion matrix, accuracy per field, per kind and by number of passages, and how
 * often the answer was UNVERIFIED. Aggregates only: the set is for generalisation checks, and
 * the bench prints no item's answer (see the set's README).
 *
 * Data: VALIDATE_OOD_DATA, a JSONL file of the same format; default bench/validate/ood/claims.jsonl.
 */
export const OOD_DATA = path.resolve(process.env.VALIDATE_OOD_DATA ?? path.join(PROJECT_ROOT, 'bench', 'validate', 'ood', 'claims.jsonl'));

export interface OodItem {
  id: string;
  field: string;
  claim: string;
  passages: string[];
  /** Indices of the passages that decide the label; empty for NOT_ENOUGH_INFO. */
  evidence: number[];
  label: ClaimLabel;
  kind: string;
  source: { title: string; url: string; license: string; provenance?: string };
}

export function loadOodItems(file = OOD_DATA): OodItem[] {
  const items = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((line, i) => {
    const item = JSON.parse(line) as OodItem;
    const fine = typeof item.id === 'string' && typeof item.field === 'string' && typeof item.claim === 'string'
      && CLAIM_LABELS.includes(item.label) && typeof item.kind === 'string'
      && Array.isArray(item.passages) && item.passages.length >= 1 && item.passages.length <= 5 && item.passages.every((p) => typeof p === 'string' && p.trim() !== '');
    if (!fine) throw new Error(`${file}:${i + 1}: not an item of the out-of-domain set (id, field, claim, passages 1 to 5, label, kind)`);
    return item;
  });
  const ids = new Set(items.map((item) => item.id));
  if (ids.size !== items.length) throw new Error(`${file}: ids repeat`);
  return items;
}

/** POST to the API with a key, the answer's JSON (a 422 answers too). */
export type Post = (url: string, body: unknown, key: string) => Promise<any>;

interface Answered {
  item: OodItem;
  answer: any;
  ms: number;
}

/**
 * Runs the set through the API with `key` (a key whose index is empty, so that every claim is
 * weighed as a fresh deployment weighs it: the index of a live key in a bench database), and
 * prints the report of each run.
 */
export async function runOodBench(post: Post, key: string, concurrency: number, items = loadOodItems()): Promise<void> {
  const byPath = new Map<string, { item: OodItem; passage: string }>();
  for (const item of items) item.passages.forEach((passage, n) => byPath.set(`/ood/${encodeURIComponent(item.id)}/${n}`, { item, passage }));
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  // Each passage a page of its own, as a public page gives it: a title in the head, the text in an article.
  const pages = http.createServer((req, res) => {
    const page = byPath.get(req.url ?? '');
    if (!page) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="en"><head><title>${escape(page.item.source.title)}</title></head>`
      + `<body><article><p>${escape(page.passage)}</p></article></body></html>`);
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(pages.address() as { port: number }).port}`;
  const sources = (item: OodItem) => item.passages.map((_, n) => `${base}/ood/${encodeURIComponent(item.id)}/${n}`);
  try {
    const fields = [...new Set(items.map((i) => i.field))];
    const labels = CLAIM_LABELS.map((l) => `${l} ${items.filter((i) => i.label === l).length}`).join(', ');
    console.log(`\nOut-of-domain set (${path.relative(process.cwd(), OOD_DATA) || OOD_DATA}): ${items.length} claims, ${fields.length} fields; ${labels}`);
    for (const [name, options] of [['default options', undefined], ['confidence_threshold 0', { confidence_threshold: 0 }]] as const) {
      const pending = [...items];
      const results: Answered[] = [];
      const started = performance.now();
      await Promise.all(Array.from({ length: concurrency }, async () => {
        for (let item = pending.shift(); item; item = pending.shift()) {
          const t = performance.now();
          const answer = await post('/v1/validate', { claim: item.claim, sources: sources(item), ...(options ? { options } : {}) }, key);
          results.push({ item, answer, ms: performance.now() - t });
        }
      }));
      // In the file's order, so that every list prints alike from run to run.
      const order = new Map(items.map((item, i) => [item, i]));
      results.sort((a, b) => order.get(a.item)! - order.get(b.item)!);
      report(`out-of-domain, ${name}`, results, (performance.now() - started) / 1000, concurrency);
    }
  } finally {
    pages.close();
  }
}

function report(name: string, results: Answered[], seconds: number, concurrency: number): void {
  const pairs = results.map((r) => ({ gold: r.item.label, predicted: answerLabel(r.answer), item: r.item }));
  const all = classification(pairs);
  const errors = results.filter((r) => !r.answer.success).map((r) => r.answer.error.code as string);
  const failedSources = results.reduce((n, r) => n + (r.answer.success ? r.answer.data.metadata.sources_failed.length : 0), 0);
  const count = (list: readonly string[]) => [...new Set(list)].sort().map((c) => `${c} ${list.filter((e) => e === c).length}`).join(', ');
  console.log(`\n${name}: ${results.length} claims in ${seconds.toFixed(1)} s (concurrency ${concurrency}); answered with an error: ${errors.length}`
    + (errors.length ? ` (${count(errors)})` : '') + `; sources that could not be read: ${failedSources}`);
  console.log(`  accuracy ${all.accuracy.toFixed(3)}, macro-F1 ${all.macroF1.toFixed(3)}`);
  for (const l of all.perLabel) console.log(`  ${l.label.padEnd(16)} P ${l.precision.toFixed(3)} R ${l.recall.toFixed(3)} F1 ${l.f1.toFixed(3)}`);

  for (const line of confusionLines(pairs)) console.log(line);
  const short = { SUPPORT: 'SUPPORT', CONTRADICT: 'CONTRADICT', NOT_ENOUGH_INFO: 'NEI' } as const;

  const verdicts = results.filter((r) => r.answer.success).map((r) => r.answer.data.validation_result as string);
  const unverified = verdicts.filter((v) => v === 'UNVERIFIED').length;
  console.log(`  UNVERIFIED: ${unverified} of ${results.length} (${(100 * unverified / results.length).toFixed(1)} %); results: ${count(verdicts)}`);

  const accuracyBy = (title: string, keyOf: (item: OodItem) => string, order?: readonly string[]) => {
    const keys = order ?? [...new Set(pairs.map((p) => keyOf(p.item)))];
    const parts = keys.map((k) => {
      const group = pairs.filter((p) => keyOf(p.item) === k);
      return `${k} ${group.filter((p) => p.gold === p.predicted).length}/${group.length} (${(group.filter((p) => p.gold === p.predicted).length / Math.max(1, group.length)).toFixed(2)})`;
    });
    console.log(`  accuracy per ${title}: ${parts.join(', ')}`);
  };
  accuracyBy('field', (i) => i.field);
  for (const label of CLAIM_LABELS) accuracyBy(`kind (${short[label]})`, (i) => i.kind, [...new Set(pairs.filter((p) => p.gold === label).map((p) => p.item.kind))]);
  accuracyBy('number of passages', (i) => (i.passages.length === 1 ? 'one passage' : '2–5 passages'), ['one passage', '2–5 passages']);
  accuracyBy('place of the deciding passage', (i) => (i.evidence.length === 0 ? 'none (NEI)' : Math.min(...i.evidence) < 3 ? 'among the first three' : 'fourth or fifth'),
    ['among the first three', 'fourth or fifth', 'none (NEI)']);
  if (name.endsWith('confidence_threshold 0')) {
    console.log('  what a confidence_threshold would trade (from these answers):');
    for (const line of tradeOff(results.map((r) => ({ gold: r.item.label, answer: r.answer })))) console.log(line);
  }
  const latencies = results.map((r) => r.ms).sort((a, b) => a - b);
  console.log(`  latency through the API: p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms`);
}
