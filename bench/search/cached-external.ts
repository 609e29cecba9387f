/**
 * Cached searches as a user's load generator sees them: `wrk` (Debian's package) against the
 * service as `npm start` runs it (API, workers and pool in one process, default logging to a
 * pipe), and against a bare Koa handler answering the same bytes in a process of its own, in
 * alternated rounds of one run. Not a test: nothing is asserted.
 *
 *   npm run bench:cache:external
 *   BENCH_CONNECTIONS=32 BENCH_SECONDS=10 BENCH_ROUNDS=3 npm run bench:cache:external
 *   BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/profiles' npm run bench:cache:external   # the service profiled
 *
 * The key is a standard key on an account whose plan never refuses (bench/unlimited-plan.ts), so
 * every check runs. The answer is warmed once and checked to be a cache hit before the rounds.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';
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
// Default logging: the service's own LOG_LEVEL default, not the test helpers' `warn`.
// BENCH_NODE_ARGS go to the service's node, to profile it: '--cpu-prof --cpu-prof-dir=/tmp/profiles'.
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const service = await spawnService({ ...plan.env, LOG_LEVEL: 'info', SEARCH_CACHE_TTL_S: '86400' }, 'all', nodeArgs);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cache-'));

async function call(method: string, route: string, body: unknown, key = TEST_KEY): Promise<any> {
  const res = await fetch(`${service.url}${route}`, {
    method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200 && res.status !== 202) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const account = (await call('POST', '/v1/accounts', { name: 'bench-cache-external', plan: 'bench' })).data;
const secret: string = (await call('POST', '/v1/auth/keys', { name: 'bench-cache-external', account_id: account.id })).data.key;
await call('POST', '/v1/index/documents', { documents: CACHED_DOCUMENTS }, secret);
const searchBody = { query: CACHED_QUERY, options: { enable_cache: true } };
await call('POST', '/v1/search', searchBody, secret);
const reference = await call('POST', '/v1/search', searchBody, secret);
if (!JSON.stringify(reference).includes('"cache":{"hit":true')) {
  throw new Error(`the second search was not answered from the cache: ${JSON.stringify(reference).slice(-300)}`);
}

const bodyFile = path.join(dir, 'answer.json');
fs.writeFileSync(bodyFile, JSON.stringify(reference));
const barePort = await freePort();
const bare: ChildProcess = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist/bench/search/bare-koa.js'), String(barePort), bodyFile], { stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise<void>((resolve, reject) => {
  bare.stdout!.once('data', () => resolve());
  bare.once('exit', (code) => reject(new Error(`the bare handler exited (${code})`)));
});

// Both are sent the same request: method, path, headers and body.
const script = path.join(dir, 'search.lua');
fs.writeFileSync(script, [
  'wrk.method = "POST"',
  `wrk.body = ${JSON.stringify(JSON.stringify(searchBody))}`,
  'wrk.headers["Content-Type"] = "application/json"',
  `wrk.headers["Authorization"] = "Bearer ${secret}"`,
].join('\n'));

interface WrkResult { rps: number; p50: string; p99: string; non2xx: number; requests: number; cpuUs: number }

const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
/**
 * CPU time (user + system, every thread) a process has used, in µs, from /proc: per request it is
 * what the machine pays for an answer whatever else runs beside, where requests per second on a
 * shared machine also measure the neighbours.
 */
function cpuMicros(pid: number | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 1e6 / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/**
 * wrk runs as a child the benchmark waits on without blocking: the service's log lines come
 * through this process's pipe, and a blocked reader would stall the service on a full pipe
 * (pino writes synchronously), which no log collector of a real deployment does.
 */
async function wrk(url: string, forSeconds: number, pid: number | undefined): Promise<WrkResult> {
  const cpuBefore = cpuMicros(pid);
  const child = spawn('wrk', ['-t1', `-c${connections}`, `-d${forSeconds}s`, '--latency', '-s', script, `${url}/v1/search`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString(); });
  await new Promise((resolve) => child.once('close', resolve));
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  if (!Number.isFinite(rps)) throw new Error(`wrk printed no rate:\n${out}${err}`);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  return {
    rps,
    p50: /\s50%\s+(\S+)/.exec(out)?.[1] ?? '?',
    p99: /\s99%\s+(\S+)/.exec(out)?.[1] ?? '?',
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
    requests,
    cpuUs: (cpuMicros(pid) - cpuBefore) / requests,
  };
}

console.log(`node ${process.version}, ${os.cpus().length} CPUs, wrk -t1 -c${connections}, ${rounds} alternated rounds of ${seconds} s each; `
  + `1-minute load average before: ${os.loadavg()[0]!.toFixed(2)}`);
console.log(`answer ${Buffer.byteLength(JSON.stringify(reference))} B (the service's) against the same object serialised by Koa`);
const targets = { service: { url: service.url, pid: service.child.pid }, bare: { url: `http://127.0.0.1:${barePort}`, pid: bare.pid } };
await wrk(targets.service.url, 3, targets.service.pid);
await wrk(targets.bare.url, 3, targets.bare.pid);
const ratios: number[] = [];
console.log('round | service req/s | p50 | p99 | non-2xx | CPU per request | bare Koa req/s | p50 | p99 | CPU per request | service / bare');
const cpuRatios: number[] = [];
for (let round = 0; round < rounds; round++) {
  // The order flips every round, so drift over the run falls on both sides.
  const first = round % 2 === 0 ? 'service' : 'bare';
  const second = first === 'service' ? 'bare' : 'service';
  const a = await wrk(targets[first].url, seconds, targets[first].pid);
  const b = await wrk(targets[second].url, seconds, targets[second].pid);
  const [s, k] = first === 'service' ? [a, b] : [b, a];
  ratios.push(s.rps / k.rps);
  cpuRatios.push(k.cpuUs / s.cpuUs);
  console.log(`${round + 1} | ${s.rps.toFixed(0)} | ${s.p50} | ${s.p99} | ${s.non2xx} | ${s.cpuUs.toFixed(0)} µs | ${k.rps.toFixed(0)} | ${k.p50} | ${k.p99} | ${k.cpuUs.toFixed(0)} µs | ${(100 * s.rps / k.rps).toFixed(1)} %`);
}
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
console.log(`cached POST /v1/search: median ${(100 * median(ratios)).toFixed(1)} % of the bare Koa handler's requests per second (target: at least 50 %); `
  + `1-minute load average after: ${os.loadavg()[0]!.toFixed(2)}`);
console.log(`CPU per request (every thread of the process, not Redis's or MariaDB's): the bare handler's is a median ${(100 * median(cpuRatios)).toFixed(1)} % of the service's`);

bare.kill();
await service.stop();
plan.remove();
fs.rmSync(dir, { recursive: true, force: true });
