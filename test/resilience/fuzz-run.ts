import { ERROR_CODES } from '../../src/errors/catalogue.js';
import { ARTICLE, html, startPageServer, type PageServer } from '../helpers/page-server.js';
import { TEST_KEY } from '../helpers/service.js';
import { Fuzzer, operationsOf, type FuzzCase, type Operation } from './fuzzer.js';

/** A case the service got wrong: a 5xx, no answer in time, a dropped connection, or an error outside the envelope. */
export interface Failure {
  kind: '5xx' | 'hang' | 'reset' | 'envelope';
  status?: number;
  detail: string;
  case: FuzzCase;
}

export interface FuzzReport {
  cases: number;
  /** Cases the client itself could not send (a header value fetch refuses). */
  unsent: number;
  byStatus: Record<number, number>;
  /** Operations by how many of their cases succeeded: one that never does is only fuzzed at its edge. */
  succeeded: Record<string, number>;
  failures: Failure[];
  seconds: number;
  slowestMs: number;
}

export interface FuzzOptions {
  url: string;
  cases: number;
  seed: number;
  concurrency: number;
  /** A request with no answer by then is a hang. */
  hangMs: number;
}

const KNOWN_CODES = new Set<string>(ERROR_CODES);

/** Pages the fuzzed URLs point at: an article, a page of links, a redirect and an error. */
export async function startFuzzSite(): Promise<PageServer> {
  return startPageServer({
    '/': html(ARTICLE),
    '/links': html(`<html><body>${Array.from({ length: 20 }, (_, i) => `<a href="/p${i}">page ${i}</a>`).join(' ')}</body></html>`),
    '/redirect': (_req, res) => { res.writeHead(302, { location: '/' }); res.end(); },
    '/gone': html('gone', 410),
  });
}

/** Things for the path parameters to name: one of each kind the API lets a client make. */
async function makeThings(url: string, fuzzer: Fuzzer, ops: Operation[]): Promise<Record<string, string[]>> {
  const ids: Record<string, string[]> = {};
  const makers = ops.filter((op) => op.method === 'POST' && !op.path.includes('{') && op.body && !/search|extract|summarize|validate|cache/.test(op.path));
  for (const op of makers) {
    const owner = op.path.split('/')[2]!;
    for (let attempt = 0; attempt < 30 && !(ids[owner]?.length); attempt++) {
      const clean = fuzzer.next(op, { pristine: true });
      const res = await fetch(`${url}${clean.target}`, { method: 'POST', headers: clean.headers, body: clean.body as string });
      const json = (await res.json().catch(() => null)) as { data?: Record<string, unknown> } | null;
      const id = res.ok ? Object.entries(json?.data ?? {}).find(([k, v]) => /(^|_)id$/.test(k) && typeof v === 'string')?.[1] : undefined;
      if (typeof id === 'string') (ids[owner] ??= []).push(id);
    }
  }
  return ids;
}

/** Sends `cases` fuzzed requests over every operation of the service's OpenAPI document. */
export async function runFuzz(options: FuzzOptions, site: PageServer): Promise<FuzzReport> {
  const doc = await (await fetch(`${options.url}/v1/openapi.json`)).json();
  const ops = operationsOf(doc);
  const pageUrls = ['/', '/links', '/redirect', '/gone'].map((p) => `${site.url}${p}`);
  const setup = new Fuzzer(doc, { pageUrls, ids: {}, apiKey: TEST_KEY }, options.seed);
  const ids = await makeThings(options.url, setup, ops);
  const fuzzer = new Fuzzer(doc, { pageUrls, ids, apiKey: TEST_KEY }, options.seed);
  const report: FuzzReport = { cases: 0, unsent: 0, byStatus: {}, succeeded: Object.fromEntries(ops.map((op) => [`${op.method} ${op.path}`, 0])), failures: [], seconds: 0, slowestMs: 0 };
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < options.cases) {
      const c = fuzzer.next(ops[next++ % ops.length]!);
      await send(options, c, report);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

async function send(options: FuzzOptions, c: FuzzCase, report: FuzzReport): Promise<void> {
  const started = performance.now();
  let res: Response;
  try {
    res = await fetch(`${options.url}${c.target}`, {
      method: c.method, headers: c.headers, redirect: 'manual', signal: AbortSignal.timeout(options.hangMs),
      ...(c.body !== undefined ? { body: typeof c.body === 'string' ? c.body : new Uint8Array(c.body) } : {}),
    });
  } catch (error) {
    const e = error as Error & { cause?: Error };
    if (e.name === 'TimeoutError') report.failures.push({ kind: 'hang', detail: `no answer in ${options.hangMs} ms`, case: c });
    else if (e.message === 'fetch failed') report.failures.push({ kind: 'reset', detail: String(e.cause?.message ?? e.cause), case: c });
    else report.unsent++; // refused by the client before anything was sent
    return;
  }
  const text = await res.text().catch(() => '');
  const ms = performance.now() - started;
  report.slowestMs = Math.max(report.slowestMs, ms);
  report.cases++;
  report.byStatus[res.status] = (report.byStatus[res.status] ?? 0) + 1;
  if (res.status < 300 && c.operation in report.succeeded) report.succeeded[c.operation]!++;
  if (res.status >= 500) report.failures.push({ kind: '5xx', status: res.status, detail: text.slice(0, 300), case: c });
  else if (res.status >= 400 && c.method !== 'HEAD') {
    // An operation that speaks another vendor's API answers in its format, the catalogued code in a header.
    let code: unknown = res.headers.get('x-error-code') ?? undefined;
    try {
      code ??= (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    } catch {
      code = undefined;
    }
    if (typeof code !== 'string' || !KNOWN_CODES.has(code)) {
      report.failures.push({ kind: 'envelope', status: res.status, detail: text.slice(0, 200), case: c });
    }
  }
}

/** A failure as one line: enough to find the case again (seed, number) and see what it did. */
export function describeFailure(f: Failure): string {
  const body = f.case.body === undefined ? '' : ` body ${Buffer.byteLength(f.case.body)} B`;
  return `#${f.case.n} ${f.kind}${f.status ? ` ${f.status}` : ''}: ${f.case.operation} [${f.case.mutations.join(', ')}] ${f.case.target.slice(0, 120)}${body} → ${f.detail.slice(0, 200)}`;
}
