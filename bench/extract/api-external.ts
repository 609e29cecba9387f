/**
 * POST /v1/extract as a user's load generator sees it: three processes — the service as
 * `npm start` runs it (API, workers and pool in one process, default logging to a pipe), the
 * article-benchmark pages served by bench/extract/page-server.ts, and `wrk` posting distinct
 * URLs (each request a URL never asked before, cycling through the 181 pages) with N requests in
 * flight. Then the same load once more with the service under `--cpu-prof`, for the CPU each
 * page costs by stage on the main thread and in each pool task. Not a test: nothing is asserted.
 *
 *   npm run bench:extract:api
 *   BENCH_SECONDS=20 BENCH_FORMATS=markdown,text npm run bench:extract:api
 *   BENCH_PROFILE_DIR=/tmp/profiles npm run bench:extract:api   # keeps the profiles, for DevTools
 *
 * Settings besides `npm start`'s defaults: a plan that never refuses (bench/unlimited-plan.ts, so
 * every check still runs), FETCH_PER_HOST_CONCURRENCY 32 (every page comes from one host here,
 * where a real workload spreads over many), and a database of its own, dropped at the end.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { PROJECT_ROOT } from '../../src/paths.js';
import { spawnService, type ServiceProcess } from '../../test/helpers/service-process.js';
import { dropDatabase, databaseUrl } from '../../test/helpers/database.js';
import { removeKeys } from '../../test/helpers/redis-keys.js';
import { TEST_KEY } from '../../test/helpers/service.js';
import { unlimitedPlan } from '../unlimited-plan.js';
import { cpuOf as serverCpuOf, processNamed } from '../process-cpu.js';
import { readStages, type StageSamples } from './cpu-stages.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const formats = (process.env.BENCH_FORMATS ?? 'markdown,text,html,json').split(',');
const profileSeconds = Number(process.env.BENCH_PROFILE_SECONDS ?? 10);
const serverUrl = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

for (const [name, value] of [['BENCH_SECONDS', seconds], ['BENCH_PROFILE_SECONDS', profileSeconds]] as const) {
  // wrk runs for whole seconds; 0 would stop it with its usage text half-way through the run.
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} must be a whole number of seconds, at least 1`);
    process.exit(1);
  }
}
if (spawnSync('wrk', ['--version']).error) {
  console.error('wrk is not installed: apt-get install wrk');
  process.exit(1);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-extract-api-'));
const database = `sev_bench_extract_${process.pid}`;
const queuePrefix = `bench-extract-${randomUUID()}`;
const plan = unlimitedPlan();
const env = {
  ...plan.env,
  DATABASE_URL: databaseUrl(serverUrl, database),
  QUEUE_PREFIX: queuePrefix,
  // Default logging: the service's own LOG_LEVEL default, not the test helpers' `warn`.
  LOG_LEVEL: 'info',
  FETCH_PER_HOST_CONCURRENCY: '32',
};

// The page server: a process of its own.
const pageServer: ChildProcess = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist/bench/extract/page-server.js')], { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
// Whatever ends this process, the page server goes too: left running, it would hold the output
// pipe open, and a shell waiting on the pipe (`… | tail`) would wait forever.
process.once('exit', () => pageServer.kill());
const { port, ids } = await new Promise<{ port: number; ids: string[] }>((resolve, reject) => {
  createInterface({ input: pageServer.stdout! }).once('line', (line) => resolve(JSON.parse(line) as { port: number; ids: string[] }));
  pageServer.once('exit', (code) => reject(new Error(`the page server exited (${code})`)));
});
const site = `http://127.0.0.1:${port}`;

async function call(service: ServiceProcess, route: string, body: unknown, key = TEST_KEY): Promise<any> {
  const res = await fetch(`${service.url}${route}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${route}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function start(nodeArgs: string[] = []): Promise<{ service: ServiceProcess; key: string }> {
  const service = await spawnService(env, 'all', nodeArgs);
  const account = (await call(service, '/v1/accounts', { name: `bench-extract-${randomUUID()}`, plan: 'bench' })).data;
  const key: string = (await call(service, '/v1/auth/keys', { name: 'bench-extract-api', account_id: account.id })).data.key;
  return { service, key };
}

let runs = 0;
interface WrkResult { pages: number; seconds: number; p50: number; p95: number; p99: number; non200: number; socketErrors: number }

/** `wrk` with `connections` requests in flight for `forSeconds`, every request a new URL. */
function wrk(service: ServiceProcess, key: string, format: string, connections: number, forSeconds: number): WrkResult {
  const tag = `r${++runs}-${process.pid}`;
  const script = path.join(dir, `${tag}.lua`);
  fs.writeFileSync(script, `
local ids = { ${ids.map((id) => JSON.stringify(id)).join(', ')} }
local n = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer ${key}"
request = function()
  n = n + 1
  local body = '{"url":"${site}/${tag}-' .. n .. '/' .. ids[(n % #ids) + 1] .. '","format":"${format}"}'
  return wrk.format(nil, "/v1/extract", nil, body)
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d %d %d\\n", summary.requests, summary.duration, latency:percentile(50), latency:percentile(95), latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
`);
  const run = spawnSync('wrk', ['-t1', `-c${connections}`, `-d${forSeconds}s`, '--timeout', '30s', '-s', script, `${service.url}/v1/extract`], { encoding: 'utf8' });
  const match = /RESULT (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)/.exec(run.stdout);
  if (!match) throw new Error(`wrk printed no result:\n${run.stdout}${run.stderr}`);
  const [requests, micros, p50, p95, p99, non200, socketErrors] = match.slice(1).map(Number) as [number, number, number, number, number, number, number];
  return { pages: requests, seconds: micros / 1e6, p50: p50 / 1000, p95: p95 / 1000, p99: p99 / 1000, non200, socketErrors };
}

/** CPU seconds of the whole process and of its main thread (whose thread id is the process id), from /proc. */
function cpuOf(pid: number): { process: number; main: number } {
  const ticks = (file: string) => {
    const stat = fs.readFileSync(file, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in USER_HZ (100 on Linux)
  };
  return { process: ticks(`/proc/${pid}/stat`), main: ticks(`/proc/${pid}/task/${pid}/stat`) };
}

function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
}

/** The database and Redis servers, when they run on this machine: their CPU counts every client's work, other sessions' too. */
const stores = { MariaDB: processNamed(/^(mariadbd|mysqld)$/), Redis: processNamed(/^redis-server$/) };

interface Measured extends WrkResult { cpu: { process: number; main: number; stores: Record<string, number> }; window: [number, number] }

/** Seconds of CPU of each store server so far (NaN where it is not on this machine). */
function storesCpu(): Record<string, number> {
  return Object.fromEntries(Object.entries(stores).map(([name, pid]) => [name, pid === undefined ? NaN : serverCpuOf(pid) / 1e6]));
}

function measure(service: ServiceProcess, key: string, format: string, connections: number, forSeconds: number): Measured {
  const pid = service.child.pid!;
  const before = cpuOf(pid);
  const storesBefore = storesCpu();
  const from = Number(process.hrtime.bigint() / 1000n);
  const result = wrk(service, key, format, connections, forSeconds);
  const to = Number(process.hrtime.bigint() / 1000n);
  const after = cpuOf(pid);
  const storesAfter = storesCpu();
  const storeSeconds = Object.fromEntries(Object.keys(stores).map((name) => [name, storesAfter[name]! - storesBefore[name]!]));
  return { ...result, cpu: { process: after.process - before.process, main: after.main - before.main, stores: storeSeconds }, window: [from, to] };
}

const ms = (x: number) => x.toFixed(1);
console.log(`node ${process.version}, ${os.cpus().length} CPUs, wrk -t1, ${seconds} s per run; 1-minute load average before: ${os.loadavg()[0]!.toFixed(2)}`);
console.log(`service: node dist/src/main.js (npm start defaults: POOL_SIZE = cores, LOG_LEVEL info; WORKER_CONCURRENCY ${process.env.WORKER_CONCURRENCY ?? 'default'}), pages from ${ids.length} article-benchmark pages, every URL distinct`);
console.log('CPU of MariaDB and Redis: their servers on this machine, every client\'s work in the window (other sessions\' too on a shared machine)');

const { service, key } = await start();
wrk(service, key, 'markdown', 16, 5); // warm-up: JIT, connections, the pool's threads
console.log('\nformat   | in flight | pages/s | p50 ms | p95 ms | p99 ms | non-200 | CPU ms/page: process | main thread | other threads | MariaDB | Redis | RSS MB');
for (const format of formats) {
  for (const connections of format === 'markdown' ? [8, 16] : [16]) {
    const m = measure(service, key, format, connections, seconds);
    const perPage = (s: number) => ms((s * 1000) / m.pages);
    console.log(`${format.padEnd(8)} | ${String(connections).padStart(9)} | ${(m.pages / m.seconds).toFixed(1).padStart(7)} | ${m.p50.toFixed(0).padStart(6)} | ${m.p95.toFixed(0).padStart(6)} | ${m.p99.toFixed(0).padStart(6)} | ${m.non200 + m.socketErrors} | `
      + `${perPage(m.cpu.process)} | ${perPage(m.cpu.main)} | ${perPage(m.cpu.process - m.cpu.main)} | ${perPage(m.cpu.stores.MariaDB!)} | ${perPage(m.cpu.stores.Redis!)} | ${memoryOf(service.child.pid!, 'VmRSS').toFixed(0)}`);
  }
}
console.log(`peak RSS of the service: ${memoryOf(service.child.pid!, 'VmHWM').toFixed(0)} MB (API, workers and pool in one process)`);
await service.stop();

// The breakdown: the same load on a service under the profiler, whose profiles are written as it stops.
const profiles = process.env.BENCH_PROFILE_DIR ?? path.join(dir, 'profiles');
const profiled = await start(['--cpu-prof', `--cpu-prof-dir=${profiles}`]);
wrk(profiled.service, profiled.key, 'markdown', 16, 5);
const m = measure(profiled.service, profiled.key, 'markdown', 16, profileSeconds);
await profiled.service.stop();
const stages = readStages(profiles, m.window[0], m.window[1]);
const mainCpuMs = (m.cpu.main * 1000) / m.pages;
console.log(`\nCPU per page by stage: markdown, 16 in flight, ${m.pages} pages in ${profileSeconds} s under --cpu-prof (${(m.pages / m.seconds).toFixed(1)} pages/s with the profiler)`);
console.log(`process ${ms((m.cpu.process * 1000) / m.pages)} ms/page: main thread ${ms(mainCpuMs)} (from /proc), other threads ${ms(((m.cpu.process - m.cpu.main) * 1000) / m.pages)} (the pool's tasks below, V8's GC helpers, libuv)`);
printStages('main thread (share of its /proc CPU)', stages.main, (samples) => (samples / stages.main.busy) * mainCpuMs);
printStages('pool threads (profile samples)', stages.pool, (samples) => (samples * stages.interval) / m.pages);
const poolBusy = (stages.pool.busy * stages.interval) / 1000;
console.log(`pool threads busy ${(100 * stages.pool.busy / Math.max(1, stages.pool.busy + stages.pool.idle)).toFixed(0)} % of their samples, ${poolBusy.toFixed(1)} s in all; main thread busy ${(100 * stages.main.busy / Math.max(1, stages.main.busy + stages.main.idle)).toFixed(0)} %`);
console.log(`1-minute load average after: ${os.loadavg()[0]!.toFixed(2)}`);

function printStages(title: string, samples: StageSamples, msPerPage: (samples: number) => number): void {
  console.log(`  ${title}: ${ms(msPerPage(samples.busy))} ms/page`);
  const rows = [...samples.stages.entries()].sort((a, b) => b[1] - a[1]);
  for (const [stage, count] of rows) {
    if (msPerPage(count) < 0.05) continue;
    console.log(`    ${ms(msPerPage(count)).padStart(6)} ms  ${stage}`);
  }
}

pageServer.kill();
plan.remove();
await dropDatabase(serverUrl, database);
await removeKeys(redisUrl, queuePrefix);
fs.rmSync(dir, { recursive: true, force: true });
