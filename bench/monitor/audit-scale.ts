/**
 * GET /v1/audit with each filter, GET /v1/usage over a month by the hour and GET /v1/errors over
 * a month, on a database holding 10 million audit rows: the target is a p95 of at most 100 ms for
 * every case, one request at a time. Not a test: it prints the figures.
 *
 *   npm run bench:audit
 *   BENCH_ROWS=1000000 BENCH_DB=sev_bench_audit_1m npm run bench:audit
 *   BENCH_REGENERATE=1 npm run bench:audit          # drop the generated rows and make them again
 *
 * The data lives in a database of its own (BENCH_DB, default sev_bench_audit, on the server of
 * DATABASE_URL), kept between runs: a run whose database already holds the requested rows from
 * the same generator only measures. The first run creates the accounts and keys through the API,
 * then loads `request_log` with LOAD DATA LOCAL INFILE a day at a time, in time order (as the
 * writers append), and the rollups of each day from the writer's own rollUp() of the same
 * entries, so they are what the writers would have produced (the day's rows are complete, so no
 * rollup row of one day meets another's). 10 million rows took about 7 minutes here; when only
 * the rollups changed (ROLLUPS below), they are made again from the same entries in about 3.
 *
 * Measured: each case as the big account's own key (scoped to monitor), as the master key naming
 * that account, and as the master key over the whole deployment; BENCH_REQUESTS (default 200)
 * requests one at a time after BENCH_WARMUP (default 20), then as many at BENCH_CONCURRENCY
 * (default 4) clients. The service runs as an API process (`--role=api`) in this process with
 * capture off, so the measured requests add nothing to the data; BENCH_CASES (a regular
 * expression on the case name) picks cases.
 */
import os from 'node:os';
import { Readable } from 'node:stream';
import { createConnection, type Connection } from 'mysql2/promise';
import { Pool } from 'undici';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log/logger.js';
import { startService } from '../../src/service.js';
import { connectionOptions, openStorage } from '../../src/storage/connection.js';
import { rollUp, type Rollup } from '../../src/monitor/audit-rollup.js';
import type { AuditEntry } from '../../src/monitor/audit-entry.js';
import { LATENCY_BUCKETS } from '../../src/monitor/latency-buckets.js';
import { testEnv, TEST_KEY } from '../../test/helpers/service.js';
import { databaseUrl } from '../../test/helpers/database.js';
import { unlimitedPlan } from '../unlimited-plan.js';
import { percentile } from '../percentile.js';
import { TrafficGenerator, daysOf, type DataAccount, type DataPlan } from './audit-data.js';

const DATABASE = process.env.BENCH_DB ?? 'sev_bench_audit';
const ROWS = Number(process.env.BENCH_ROWS ?? 10_000_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 60);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 50);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const REGENERATE = process.env.BENCH_REGENERATE === '1';
const ONLY = new RegExp(process.env.BENCH_CASES ?? '.');
const SEED = 20261124;
/** Changes when the generator does: a database made by another version is made again. */
const GENERATOR = 1;
const TARGET_MS = 100;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const url = databaseUrl(process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test', DATABASE);

// ---------------------------------------------------------------------------------------------
// Rollup tables as the writer fills them (src/monitor/request-log.repository.ts addToRollups).

const LATENCY_COLUMNS = Array.from({ length: LATENCY_BUCKETS }, (_, i) => `lat_${i}`);
type Cell = string | number | null;
const datetime = (at: Date) => at.toISOString().slice(0, 23).replace('T', ' ');
const date = (at: Date) => at.toISOString().slice(0, 10);

interface Loaded {
  table: string;
  columns: string[];
  rows(rollup: Rollup): Cell[][];
}

const ROLLUP_TABLES: Loaded[] = [
  {
    table: 'audit_hourly',
    columns: ['account_id', 'mode', 'hour', 'key_id', 'endpoint', 'requests', 'errors', 'cache_hits', 'request_bytes', 'response_bytes', 'latency_ms_sum', ...LATENCY_COLUMNS],
    rows: (r) => r.hourly.map((h) => [h.account_id, h.mode, datetime(h.hour), h.key_id, h.endpoint, h.requests, h.errors, h.cache_hits,
      h.request_bytes, h.response_bytes, h.latency_ms_sum, ...h.latency]),
  },
  {
    table: 'audit_errors_hourly',
    columns: ['account_id', 'mode', 'hour', 'endpoint', 'error_code', 'parameter', 'agent', 'errors', 'latency_ms_sum'],
    rows: (r) => r.errors.map((e) => [e.account_id, e.mode, datetime(e.hour), e.endpoint, e.error_code, e.parameter, e.agent, e.errors, e.latency_ms_sum]),
  },
  {
    table: 'audit_ips_hourly',
    columns: ['account_id', 'mode', 'hour', 'endpoint', 'failed', 'ip'],
    rows: (r) => r.ipsHourly.map((i) => [i.account_id, i.mode, datetime(i.at), i.endpoint, i.failed, i.ip]),
  },
  {
    table: 'audit_ips_daily',
    columns: ['account_id', 'mode', 'day', 'endpoint', 'failed', 'ip'],
    rows: (r) => r.ipsDaily.map((i) => [i.account_id, i.mode, date(i.at), i.endpoint, i.failed, i.ip]),
  },
  ...(['audit_totals_hourly', 'audit_totals_daily'] as const).map((table): Loaded => ({
    table,
    columns: ['account_id', 'mode', table === 'audit_totals_hourly' ? 'hour' : 'day', 'key_id', 'endpoint', 'requests', 'errors', 'cache_hits',
      'request_bytes', 'response_bytes', 'latency_ms_sum', 'error_latency_ms_sum', ...LATENCY_COLUMNS],
    rows: (r) => (table === 'audit_totals_hourly' ? r.totalsHourly : r.totalsDaily).map((t) => [t.account_id, t.mode,
      table === 'audit_totals_hourly' ? datetime(t.at) : date(t.at), t.key_id, t.endpoint, t.requests, t.errors, t.cache_hits, t.request_bytes,
      t.response_bytes, t.latency_ms_sum, t.error_latency_ms_sum, ...t.latency]),
  })),
  {
    table: 'audit_error_facets_daily',
    columns: ['account_id', 'mode', 'day', 'error_code', 'facet', 'value', 'errors', 'latency_ms_sum'],
    rows: (r) => r.errorFacets.map((f) => [f.account_id, f.mode, date(f.day), f.error_code, f.facet, f.value, f.errors, f.latency_ms_sum]),
  },
  {
    table: 'audit_error_hours_daily',
    columns: ['account_id', 'mode', 'day', 'error_code', ...Array.from({ length: 24 }, (_, i) => `h_${i}`)],
    rows: (r) => r.errorHours.map((e) => [e.account_id, e.mode, date(e.day), e.error_code, ...e.hours]),
  },
  {
    table: 'audit_ips_deployment_daily',
    columns: ['mode', 'day', 'endpoint', 'failed', 'ip', 'first_seen', 'last_seen'],
    rows: (r) => r.ipsDeployment.map((i) => [i.mode, date(i.day), i.endpoint, i.failed, i.ip, datetime(i.first_seen), datetime(i.last_seen)]),
  },
];

const RAW_COLUMNS = ['entry_id', 'request_id', 'occurred_at', 'principal_id', 'account_id', 'mode', 'method', 'endpoint', 'status',
  'response_time_ms', 'ip_address', 'user_agent', 'request_size', 'response_size', 'cache_hit', 'region', 'error_code', 'extra'];

function rawRow(e: AuditEntry): Cell[] {
  return [e.entryId, e.requestId, datetime(e.occurredAt), e.principalId, e.accountId, e.mode, e.method, e.endpoint, e.status, e.responseTimeMs,
    e.ipAddress, e.userAgent, e.requestSize, e.responseSize, e.cacheHit ? 1 : 0, e.region, e.errorCode, e.extra ? JSON.stringify(e.extra) : null];
}

const escape = (text: string) => text.replace(/[\\\t\n]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : '\\n'));
const cell = (value: Cell) => (value === null ? '\\N' : typeof value === 'number' ? String(value) : escape(value));

/** Rows as LOAD DATA reads them (tab-separated, \N for NULL), in chunks of 10,000 lines. */
function* tsv(rows: Cell[][]): Generator<Buffer> {
  for (let i = 0; i < rows.length; i += 10_000) {
    let chunk = '';
    for (const row of rows.slice(i, i + 10_000)) chunk += `${row.map(cell).join('\t')}\n`;
    yield Buffer.from(chunk);
  }
}

async function loadData(connection: Connection, table: string, columns: string[], rows: Cell[][]): Promise<void> {
  if (rows.length === 0) return;
  await connection.query({
    sql: `LOAD DATA LOCAL INFILE '${table}.tsv' INTO TABLE ${table} CHARACTER SET utf8mb4
      FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' (${columns.join(', ')})`,
    infileStreamFactory: () => Readable.from(tsv(rows)),
  });
}

// ---------------------------------------------------------------------------------------------
// The service, and the database's state.

const loadBefore = os.loadavg()[0]!;
const plans = unlimitedPlan();
/**
 * The service's time runs from the end of the generated entries (set once they are known), so a
 * run days after the generation sees what a live deployment sees: the current hour partly
 * filled, the last month of errors full. Raw rows are kept a day less than the data spans, so an
 * unfiltered read starts inside the data, with partial days at both ends, as on a deployment
 * whose log fills its retention. The retention job (src/monitor/retention.ts) would delete the
 * first days by the real time: its hourly leases in Redis are taken for the next hours first, so
 * it never runs against the kept rows.
 */
const clock = { shiftMs: 0, now: () => new Date(Date.now() - clock.shiftMs) };
const config = loadConfig(testEnv({
  ...plans.env, DATABASE_URL: url, AUDIT_CAPTURE: 'off', KEY_CACHE_TTL_S: '3600', AUDIT_RETENTION_DAYS: String(DAYS - 1),
}));
const redis = new Redis(config.redisUrl);
const slot = Math.floor(Date.now() / HOUR_MS);
for (let i = 0; i < 8; i++) await redis.set(`${config.queuePrefix}:audit:retention:${slot + i}`, 'bench', 'PX', 9 * HOUR_MS);
const starting = performance.now();
const service = await startService(config, 'api', createLogger('silent', 'api'), { clock });
console.log(`service started in ${((performance.now() - starting) / 1000).toFixed(1)} s (migrations included)`);
const pool = new Pool(service.url, { connections: CONCURRENCY + 1 });
const storage = openStorage(url, 2);

interface Answer { status: number; text: string }

async function request(method: string, path: string, key: string, body?: unknown): Promise<Answer> {
  const response = await pool.request({
    method: method as 'GET', path, headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.statusCode, text: await response.body.text() };
}

async function api(method: string, path: string, body?: unknown, key = TEST_KEY): Promise<any> {
  const answer = await request(method, path, key, body);
  if (answer.status !== 200) throw new Error(`${method} ${path}: ${answer.status} ${answer.text.slice(0, 500)}`);
  return JSON.parse(answer.text).data;
}

interface Meta extends DataPlan {
  generator: number;
  rollups: string;
  complete: boolean;
  seconds?: number;
}

await sql`CREATE TABLE IF NOT EXISTS bench_audit_meta (id TINYINT PRIMARY KEY, meta MEDIUMTEXT NOT NULL)`.execute(storage.db);
async function readMeta(): Promise<Meta | undefined> {
  const { rows } = await sql<{ meta: string }>`SELECT meta FROM bench_audit_meta WHERE id = 1`.execute(storage.db);
  return rows[0] ? (JSON.parse(rows[0].meta) as Meta) : undefined;
}
async function writeMeta(meta: Meta): Promise<void> {
  await sql`REPLACE INTO bench_audit_meta (id, meta) VALUES (1, ${JSON.stringify(meta)})`.execute(storage.db);
}

/** 50 accounts on the bench plan, the first the big one, with live and sandbox keys, made through the API. */
async function createAccounts(): Promise<DataAccount[]> {
  const accounts: DataAccount[] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    const account = await api('POST', '/v1/accounts', { name: `bench-audit-${String(i).padStart(2, '0')}${i === 0 ? '-big' : ''}`, plan: 'bench' });
    const key = async (mode: 'live' | 'test', n: number) => (await api('POST', '/v1/auth/keys', { name: `bench ${mode} ${n}`, account_id: account.id, mode })).id as string;
    const liveKeys = i === 0 ? 6 : 1 + (i % 3);
    const testKeys = i === 0 ? 2 : i % 4 === 0 ? 0 : 1;
    const live: string[] = [];
    const test: string[] = [];
    for (let n = 0; n < liveKeys; n++) live.push(await key('live', n));
    for (let n = 0; n < testKeys; n++) test.push(await key('test', n));
    accounts.push({ id: account.id, live, test });
  }
  return accounts;
}

function duration(seconds: number): string {
  return seconds < 90 ? `${seconds.toFixed(0)} s` : `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

/**
 * Loads the plan's entries day by day: request_log (unless only the rollups are made again) and
 * the rollups of each day, on two connections so MariaDB works on both while the next day is made.
 */
async function generate(meta: Meta, rollupsOnly: boolean): Promise<void> {
  const tables = [...ROLLUP_TABLES.map((t) => t.table), ...(rollupsOnly ? [] : ['request_log'])];
  for (const table of tables) await sql`TRUNCATE TABLE ${sql.table(table)}`.execute(storage.db);
  const options = { ...connectionOptions(url), timezone: 'Z' as const };
  const raw = await createConnection(options);
  const rollups = await createConnection(options);
  const generator = new TrafficGenerator(meta);
  const days = daysOf(meta);
  const started = performance.now();
  let done = 0;
  let pending: Promise<unknown> = Promise.resolve();
  for (const [i, day] of days.entries()) {
    const entries = generator.day(day);
    const rollup = rollUp(entries);
    const rawRows = rollupsOnly ? [] : entries.map(rawRow);
    const rollupRows = ROLLUP_TABLES.map((t) => t.rows(rollup));
    await pending;
    pending = Promise.all([
      rollupsOnly ? undefined : loadData(raw, 'request_log', RAW_COLUMNS, rawRows),
      (async () => {
        for (const [t, table] of ROLLUP_TABLES.entries()) await loadData(rollups, table.table, table.columns, rollupRows[t]!);
      })(),
    ]);
    done += entries.length;
    const seconds = (performance.now() - started) / 1000;
    console.log(`  ${date(new Date(day))} (${i + 1}/${days.length}): ${entries.length.toLocaleString('en')} entries, `
      + `${rollup.hourly.length} hourly, ${rollup.errors.length} error, ${rollup.ipsHourly.length} + ${rollup.ipsDaily.length} address rows; `
      + `${(done / 1e6).toFixed(2)}M in ${duration(seconds)}, ETA ${duration((seconds / done) * (meta.rows - done))}`);
  }
  await pending;
  await raw.end();
  await rollups.end();
  console.log(`  analysing tables ...`);
  for (const table of tables) await sql`ANALYZE TABLE ${sql.table(table)}`.execute(storage.db);
  meta.seconds = (performance.now() - started) / 1000;
}

/** Changes with the rollups' tables or what rollUp() writes into them: the rollups are then made again. */
const ROLLUPS = 3;
const signature = `${ROLLUPS}:${ROLLUP_TABLES.map((t) => t.table).join(',')}`;
let meta = await readMeta();
const [{ n: stored }] = (await sql<{ n: string }>`SELECT COUNT(*) AS n FROM request_log`.execute(storage.db)).rows as [{ n: string }];
const usable = meta !== undefined && meta.complete && meta.generator === GENERATOR && meta.rows === ROWS && Number(stored) === ROWS
  && meta.end - meta.start === DAYS * DAY_MS && meta.accounts.length === ACCOUNTS;
if (!usable || REGENERATE) {
  const accounts = meta !== undefined && meta.accounts.length === ACCOUNTS ? meta.accounts : await createAccounts();
  const end = Date.now();
  meta = { generator: GENERATOR, rollups: signature, complete: false, seed: SEED, rows: ROWS, start: end - DAYS * DAY_MS, end, accounts };
  await writeMeta(meta);
  console.log(`Generating ${ROWS.toLocaleString('en')} audit entries over ${DAYS} days into ${DATABASE} ...`);
  await generate(meta, false);
  meta.complete = true;
  await writeMeta(meta);
} else if (meta!.rollups !== signature) {
  console.log(`The rollup tables changed (${meta!.rollups} → ${signature}): making the rollups of the ${ROWS.toLocaleString('en')} entries again ...`);
  await generate(meta!, true);
  meta!.rollups = signature;
  await writeMeta(meta!);
} else {
  console.log(`Reusing the ${ROWS.toLocaleString('en')} entries of ${DATABASE} (generated ${new Date(meta!.end).toISOString()}; BENCH_REGENERATE=1 makes them again)`);
}
const data = meta!;
clock.shiftMs = Math.max(0, Date.now() - data.end);

// Consistency: the rollups count every raw row once.
const check = await sql<{ raw: string; hourly: string; errors: string; failed: string; deployment: string }>`SELECT
  (SELECT COUNT(*) FROM request_log) AS raw, (SELECT SUM(requests) FROM audit_hourly) AS hourly,
  (SELECT SUM(errors) FROM audit_errors_hourly WHERE account_id <> '*') AS errors, (SELECT SUM(errors) FROM audit_hourly) AS failed,
  (SELECT SUM(requests) FROM audit_totals_daily WHERE account_id = '*' AND key_id = '*' AND endpoint = '*') AS deployment`.execute(storage.db);
const counts = check.rows[0]!;
if (Number(counts.raw) !== Number(counts.hourly) || Number(counts.errors) !== Number(counts.failed) || Number(counts.raw) !== Number(counts.deployment)) {
  throw new Error(`rollups disagree with the raw rows: ${JSON.stringify(counts)}`);
}
const sizes = await sql<{ name: string; approx: string; mb: string }>`SELECT table_name AS name, table_rows AS approx,
  ROUND((data_length + index_length) / 1048576) AS mb FROM information_schema.tables
  WHERE table_schema = ${DATABASE} AND (table_name LIKE 'audit%' OR table_name = 'request_log') ORDER BY table_name`.execute(storage.db);
const bufferPool = await sql<{ Value: string }>`SHOW VARIABLES LIKE 'innodb_buffer_pool_size'`.execute(storage.db);
const version = await sql<{ v: string }>`SELECT VERSION() AS v`.execute(storage.db);

// ---------------------------------------------------------------------------------------------
// The cases.

const big = data.accounts[0]!;
const reader = await api('POST', '/v1/auth/keys', { name: 'bench-audit-reader', account_id: big.id, mode: 'live', type: 'scoped', permissions: ['monitor'] });
const sample = await sql<{ request_id: string }>`SELECT request_id FROM request_log
  WHERE account_id = ${big.id} AND mode = 'live' AND occurred_at >= ${new Date((data.start + data.end) / 2)} ORDER BY occurred_at LIMIT 1`.execute(storage.db);
const requestId = sample.rows[0]!.request_id;
const dayStart = new Date(Math.floor(data.end / DAY_MS) * DAY_MS - 20 * DAY_MS);
const monthEnd = new Date(Math.ceil(data.end / HOUR_MS) * HOUR_MS);
const monthStart = new Date(monthEnd.getTime() - 30 * DAY_MS);
const iso = (at: Date) => at.toISOString();

const CASES: [name: string, path: string][] = [
  ['audit, no filter', '/v1/audit'],
  ['audit, endpoint=/v1/extract', '/v1/audit?endpoint=/v1/extract'],
  ['audit, status=error', '/v1/audit?status=error'],
  ['audit, status=success', '/v1/audit?status=success'],
  ['audit, request_id', `/v1/audit?request_id=${requestId}`],
  ['audit, one day', `/v1/audit?start_date=${iso(dayStart)}&end_date=${iso(new Date(dayStart.getTime() + DAY_MS))}`],
  ['audit, offset=5000', '/v1/audit?offset=5000'],
  ['audit, limit=1000', '/v1/audit?limit=1000'],
  ['usage, 30 days by hour', `/v1/usage?start_date=${iso(monthStart)}&end_date=${iso(monthEnd)}&breakdown=hour`],
  ['usage, 30 days by hour, details', `/v1/usage?start_date=${iso(monthStart)}&end_date=${iso(monthEnd)}&breakdown=hour&include_details=true`],
  ['errors, period=month', '/v1/errors?period=month'],
];

const READERS: [name: string, key: string, query: string][] = [
  ['account key', reader.key as string, ''],
  ['master, account_id', TEST_KEY, `account_id=${big.id}`],
  ['master, deployment', TEST_KEY, ''],
];

function withQuery(path: string, query: string): string {
  if (query === '') return path;
  return `${path}${path.includes('?') ? '&' : '?'}${query}`;
}

/** The rows a case covers, from its answer: the audit total, the usage total, the errors counted. */
function rowsOf(data: any): number {
  if (data.pagination) return data.pagination.total;
  if (data.endpoint_usage) return Object.values(data.endpoint_usage as Record<string, { requests: number }>).reduce((s, e) => s + e.requests, 0);
  return data.error_summary.total_errors;
}

async function timed(path: string, key: string): Promise<number> {
  const started = performance.now();
  const answer = await request('GET', path, key);
  const ms = performance.now() - started;
  if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.text.slice(0, 300)}`);
  return ms;
}

async function run(path: string, key: string, concurrency: number): Promise<number[]> {
  const latencies: number[] = [];
  let left = REQUESTS;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (left-- > 0) latencies.push(await timed(path, key));
  }));
  return latencies.sort((a, b) => a - b);
}

interface Result { name: string; reader: string; rows: number; one: number[]; many: number[] }
const results: Result[] = [];
const fmt = (ms: number) => ms.toFixed(1);
const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;

console.log(`\nnode ${process.version}, ${os.availableParallelism()} CPUs, load ${loadBefore.toFixed(2)} before the run; MariaDB ${version.rows[0]!.v}, `
  + `buffer pool ${Math.round(Number(bufferPool.rows[0]!.Value) / 1048576)} MB`);
console.log(`tables: ${sizes.rows.map((s) => `${s.name} ~${Number(s.approx).toLocaleString('en')} rows, ${s.mb} MB`).join('; ')}`);
console.log(`${REQUESTS} requests one at a time after ${WARMUP} warm-up requests, then ${REQUESTS} at concurrency ${CONCURRENCY}; times in ms\n`);
console.log(line(['case', 'reader', 'rows', 'p50', 'p95', 'p99', `p50 (c${CONCURRENCY})`, `p95 (c${CONCURRENCY})`, `p99 (c${CONCURRENCY})`, `p95 ≤ ${TARGET_MS} ms`]));
console.log(line(Array.from({ length: 10 }, () => '---')));
for (const [name, path] of CASES) {
  if (!ONLY.test(name)) continue;
  for (const [readerName, key, query] of READERS) {
    const target = withQuery(path, query);
    const first = await request('GET', target, key);
    if (first.status !== 200) throw new Error(`GET ${target}: ${first.status} ${first.text.slice(0, 300)}`);
    const rows = rowsOf(JSON.parse(first.text).data);
    for (let i = 0; i < WARMUP; i++) await timed(target, key);
    const one = await run(target, key, 1);
    const many = await run(target, key, CONCURRENCY);
    results.push({ name, reader: readerName, rows, one, many });
    const p95 = percentile(one, 95);
    console.log(line([name, readerName, rows.toLocaleString('en'), fmt(percentile(one, 50)), fmt(p95), fmt(percentile(one, 99)),
      fmt(percentile(many, 50)), fmt(percentile(many, 95)), fmt(percentile(many, 99)), p95 <= TARGET_MS ? 'yes' : '**no**']));
  }
}
const missed = results.filter((r) => percentile(r.one, 95) > TARGET_MS);
console.log(`\n${results.length - missed.length} of ${results.length} cases at p95 ≤ ${TARGET_MS} ms one at a time`
  + `${missed.length > 0 ? `; over: ${missed.map((r) => `${r.name} (${r.reader})`).join(', ')}` : ''}`);

await api('POST', `/v1/auth/keys/${reader.id as string}/revoke`, {});
await pool.close();
await storage.close();
for (let i = 0; i < 8; i++) await redis.del(`${config.queuePrefix}:audit:retention:${slot + i}`);
redis.disconnect();
await service.close();
plans.remove();
