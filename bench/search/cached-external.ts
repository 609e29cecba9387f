/**
 * Cached searches as a user's load generator sees them: `wrk` (Debian's package) against the
 * service as `npm start` runs it (API, workers and pool in one process, default logging to a
 * pipe), against a second such service of the same deployment (same database, Redis, key and
 * cached answer) started with AUDIT_CAPTURE=off, and against a bare Koa handler answering the
 * same bytes in a process of its own, in alternated rounds of one run. Not a test: nothing is
 * asserted.
 *
 *   npm run bench:cache:external
 *   BENCH_CONNECTIONS=32 BENCH_SECONDS=10 BENCH_ROUNDS=3 npm run bench:cache:external
 *   BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/profiles' npm run bench:cache:external   # the service profiled
 *
 * Two figures: the service's requests per second against the bare handler's (issue 24: at least
 * 50 %), and what audit capture costs (issue 17: at most 5 %), the capturing service against the
 * one that captures nothing. The capturing service writes its entries to MySQL itself, as
 * `npm start` does, so its rounds carry the writing too; every round starts once the audit
 * stream is empty, so no round pays for another's entries.
 *
 * The key is a standard key on an account whose plan never refuses (bench/unlimited-plan.ts), so
 * every check runs. The services use a database of the run's own, dropped at the end. The
 * answer is warmed once and checked to be a cache hit before the rounds.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { auditStreamKey } from '../../src/monitor/audit-stream.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { databaseUrl, dropDatabase } from '../../test/helpers/database.js';
import { freePort } from '../../test/helpers/free-port.js';
import { spawnService } from '../../test/helpers/service-process.js';
import { TEST_KEY } from '../../test/helpers/service.js';
import { unlimitedPlan } from '../unlimited-plan.js';
import { CACHED_DOCUMENTS, CACHED_QUERY } from './cached-corpus.js';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

if (spawnSync('wrk', ['--version']).error) {
  console.error('wrk is not installed: apt-get install wrk');
  process.exit(1);
}

const plan = unlimitedPlan();
const prefix = `${process.env.TEST_KEY_PREFIX ?? 'bench-'}${randomUUID()}`;
// A database of its own (the service creates it), dropped at the end: the audit rows of earlier
// runs would otherwise make every run's capture write into a larger table than the last.
const serverUrl = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
const database = `sev_bench_cache_${process.pid}`;
// Default logging: the service's own LOG_LEVEL default, not the test helpers' `warn`.
const env = { ...plan.env, LOG_LEVEL: 'info', SEARCH_CACHE_TTL_S: '86400', QUEUE_PREFIX: prefix, DATABASE_URL: databaseUrl(serverUrl, database) };
// BENCH_NODE_ARGS go to the capturing service's node, to profile it: '--cpu-prof --cpu-prof-dir=/tmp/profiles'.
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const service = await spawnService(env, 'all', nodeArgs);
const uncaptured = await spawnService({ ...env, AUDIT_CAPTURE: 'off' }, 'all');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cache-'));
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

async function call(base: string, method: string, route: string, body: unknown, key = TEST_KEY): Promise<any> {
  const res = await fetch(`${base}${route}`, {
    method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200 && res.status !== 202) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const account = (await call(service.url, 'POST', '/v1/accounts', { name: 'bench-cache-external', plan: 'bench' })).data;
const secret: string = (await call(service.url, 'POST', '/v1/auth/keys', { name: 'bench-cache-external', account_id: account.id })).data.key;
await call(service.url, 'POST', '/v1/index/documents', { documents: CACHED_DOCUMENTS }, secret);
const searchBody = { query: CACHED_QUERY, options: { enable_cache: true } };
await call(service.url, 'POST', '/v1/search', searchBody, secret);
const reference = await call(service.url, 'POST', '/v1/search', searchBody, secret);
for (const answer of [reference, await call(uncaptured.url, 'POST', '/v1/search', searchBody, secret)]) {
  if (!JSON.stringify(answer).includes('"cache":{"hit":true')) {
    throw new Error(`the search was not answered from the cache: ${JSON.stringify(answer).slice(-300)}`);
  }
}

const bodyFile = path.join(dir, 'answer.json');
fs.writeFileSync(bodyFile, JSON.stringify(reference));
const barePort = await freePort();
const bare: ChildProcess = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist/bench/search/bare-koa.js'), String(barePort), bodyFile], { stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise<void>((resolve, reject) => {
  bare.stdout!.once('data', () => resolve());
  bare.once('exit', (code) => reject(new Error(`the bare handler exited (${code})`)));
});

// Every target is sent the same request: method, path, headers and body.
const script = path.join(dir, 'search.lua');
fs.writeFileSync(script, [
  'wrk.method = "POST"',
  `wrk.body = ${JSON.stringify(JSON.stringify(searchBody))}`,
  'wrk.headers["Content-Type"] = "application/json"',
  `wrk.headers["Authorization"] = "Bearer ${secret}"`,
].join('\n'));

interface WrkResult { rps: number; p50: string; p99: string; non2xx: number; requests: number; cpuUs: number; mainUs: number; storesUs: number }

const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
/**
 * CPU time (user + system, every thread) processes have used, in µs, from /proc: per request it is
 * what the machine pays for an answer whatever else runs beside, where requests per second on a
 * shared machine also measure the neighbours. With `mainThreadOnly`, the main thread's alone: the
 * thread that answers requests, whose time per request bounds a process's throughput.
 */
function cpuMicros(pids: ReadonlyArray<number | undefined>, mainThreadOnly = false): number {
  let sum = 0;
  for (const pid of pids) {
    try {
      const file = mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`;
      const fields = fs.readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
      sum += (Number(fields[11]) + Number(fields[12])) * 1e6 / TICKS_PER_SECOND;
    } catch {
      return NaN;
    }
  }
  return sum;
}

/** Redis's and MariaDB's processes on this machine: the audit entries cost them work too. */
const STORES = ['redis-server', 'mariadbd'].flatMap((name) => spawnSync('pgrep', ['-x', name], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number));

const streamKey = auditStreamKey(prefix);
/** Waits until the capturing service has written every entry, so the next round starts clean. */
async function drained(): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await redis.xlen(streamKey)) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
}

/**
 * wrk runs as a child the benchmark waits on without blocking: the service's log lines come
 * through this process's pipe, and a blocked reader would stall a service that writes them
 * synchronously, which no log collector of a real deployment does.
 */
async function wrk(url: string, forSeconds: number, pid: number | undefined): Promise<WrkResult> {
  await drained();
  const cpuBefore = cpuMicros([pid]);
  const mainBefore = cpuMicros([pid], true);
  const storesBefore = cpuMicros(STORES);
  const child = spawn('wrk', ['-t1', `-c${connections}`, `-d${forSeconds}s`, '--latency', '-s', script, `${url}/v1/search`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString(); });
  await new Promise((resolve) => child.once('close', resolve));
  // The entries of the round are written (and paid for) before its CPU is read.
  await drained();
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  if (!Number.isFinite(rps)) throw new Error(`wrk printed no rate:\n${out}${err}`);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  return {
    rps,
    p50: /\s50%\s+(\S+)/.exec(out)?.[1] ?? '?',
    p99: /\s99%\s+(\S+)/.exec(out)?.[1] ?? '?',
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
    requests,
    cpuUs: (cpuMicros([pid]) - cpuBefore) / requests,
    mainUs: (cpuMicros([pid], true) - mainBefore) / requests,
    storesUs: (cpuMicros(STORES) - storesBefore) / requests,
  };
}

type Target = 'service' | 'uncaptured' | 'bare';
const targets: Record<Target, { url: string; pid: number | undefined; label: string }> = {
  service: { url: service.url, pid: service.child.pid, label: 'service' },
  uncaptured: { url: uncaptured.url, pid: uncaptured.child.pid, label: 'service, capture off' },
  bare: { url: `http://127.0.0.1:${barePort}`, pid: bare.pid, label: 'bare Koa' },
};
console.log(`node ${process.version}, ${os.cpus().length} CPUs, wrk -t1 -c${connections}, ${rounds} alternated rounds of ${seconds} s each; `
  + `1-minute load average before: ${os.loadavg()[0]!.toFixed(2)}`);
console.log(`answer ${Buffer.byteLength(JSON.stringify(reference))} B (the service's) against the same object serialised by Koa`);
for (const target of Object.values(targets)) await wrk(target.url, 3, target.pid);

const results: Record<Target, WrkResult[]> = { service: [], uncaptured: [], bare: [] };
console.log('round | target | req/s | p50 | p99 | non-2xx | CPU per request: process (its main thread) | Redis and MariaDB');
for (let round = 0; round < rounds; round++) {
  // The order flips every round, capture on and off side by side, so drift over the run falls on all alike.
  const order: Target[] = round % 2 === 0 ? ['service', 'uncaptured', 'bare'] : ['bare', 'uncaptured', 'service'];
  for (const name of order) {
    const result = await wrk(targets[name].url, seconds, targets[name].pid);
    results[name].push(result);
    console.log(`${round + 1} | ${targets[name].label} | ${result.rps.toFixed(0)} | ${result.p50} | ${result.p99} | ${result.non2xx} | `
      + `${result.cpuUs.toFixed(0)} µs (${result.mainUs.toFixed(0)} µs) | ${result.storesUs.toFixed(0)} µs`);
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  return (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.ceil((sorted.length - 1) / 2)]!) / 2;
};
const perRound = (f: (round: number) => number) => Array.from({ length: rounds }, (_, i) => f(i));
const ofBare = perRound((i) => results.service[i]!.rps / results.bare[i]!.rps);
const captureCost = perRound((i) => 1 - results.service[i]!.rps / results.uncaptured[i]!.rps);
const cpu = (name: Target, i: number) => results[name][i]!.cpuUs + results[name][i]!.storesUs;
const captureCpu = perRound((i) => cpu('service', i) / cpu('uncaptured', i) - 1);
const captureMain = perRound((i) => results.service[i]!.mainUs / results.uncaptured[i]!.mainUs - 1);
console.log(`cached POST /v1/search: median ${(100 * median(ofBare)).toFixed(1)} % of the bare Koa handler's requests per second (target: at least 50 %)`);
console.log(`audit capture (handed to Redis and written to MySQL by the same process): median cost ${(100 * median(captureCost)).toFixed(1)} % of the requests per second `
  + `(each round: ${captureCost.map((c) => (100 * c).toFixed(1)).join(', ')} %; target: at most 5 %); `
  + `CPU per request of the service, Redis and MariaDB: median +${(100 * median(captureCpu)).toFixed(1)} % (each round: ${captureCpu.map((c) => (100 * c).toFixed(1)).join(', ')} %); `
  + `the main thread's CPU per request: median +${(100 * median(captureMain)).toFixed(1)} % (each round: ${captureMain.map((c) => (100 * c).toFixed(1)).join(', ')} %)`);
console.log(`1-minute load average after: ${os.loadavg()[0]!.toFixed(2)}`);

bare.kill();
await Promise.all([service.stop(), uncaptured.stop()]);
redis.disconnect();
plan.remove();
await dropDatabase(serverUrl, database);
fs.rmSync(dir, { recursive: true, force: true });
