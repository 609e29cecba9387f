/**
 * kill -9 of an API process under load, then the audit log against what the load generator
 * received: every answered request must be there, once. Not a test: it prints the counts.
 *
 *   npm run bench:audit-crash
 *   BENCH_CONCURRENCY=32 BENCH_KILL_AFTER_S=10 npm run bench:audit-crash
 *
 * The API process (`node dist/src/main.js --role=api`, as `npm run api` starts it) is a child
 * process; a worker of the same deployment, in this process, writes the entries to MySQL, as
 * workers do. The load is a mix of cheap successful requests (GET /v1/auth/whoami) and refused
 * ones (a search with an invalid max_results), from `concurrency` keep-alive clients. After the
 * kill the worker gets AUDIT_CLAIM_IDLE_MS to take over anything the writers left unwritten.
 */
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Pool } from 'undici';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log/logger.js';
import { startService } from '../../src/service.js';
import { openStorage } from '../../src/storage/connection.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { testEnv, TEST_KEY } from '../../test/helpers/service.js';

const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const killAfterSeconds = Number(process.env.BENCH_KILL_AFTER_S ?? 10);
const env = testEnv({ AUDIT_CLAIM_IDLE_MS: '2000', LOG_LEVEL: 'info' });
const config = loadConfig(env);
const worker = await startService(config, 'worker', createLogger('silent', 'worker'));

const api = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist/src/main.js'), '--role=api'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise<string>((resolve, reject) => {
  let out = '';
  api.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    const match = /listening on (http:\/\/[^\s"]+)/.exec(out);
    if (match) resolve(match[1]!);
  });
  api.once('exit', (code) => reject(new Error(`the API process exited (${code}) before listening`)));
});

const pool = new Pool(url, { connections: concurrency, pipelining: 1 });
const answered: string[] = [];
let failed = 0;
let stopped = false;
const headers = { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' };
const invalidSearch = JSON.stringify({ query: 'audit crash', max_results: 500 });
async function client(index: number): Promise<void> {
  for (let i = 0; !stopped; i++) {
    try {
      const search = (i + index) % 10 === 0;
      const response = await pool.request(search
        ? { method: 'POST', path: '/v1/search', headers, body: invalidSearch }
        : { method: 'GET', path: '/v1/auth/whoami', headers });
      const body = (await response.body.json()) as { request_id: string };
      answered.push(body.request_id);
    } catch {
      failed++;
      if (stopped) return;
    }
  }
}
const started = performance.now();
const clients = Array.from({ length: concurrency }, (_, i) => client(i));
await new Promise((resolve) => setTimeout(resolve, killAfterSeconds * 1000));
api.kill('SIGKILL');
const killedAt = performance.now();
stopped = true;
await Promise.all(clients);
await pool.close().catch(() => undefined);

const storage = openStorage(config.databaseUrl, 2);
async function logged(): Promise<{ rows: number; distinct: number }> {
  let rows = 0;
  let distinct = 0;
  for (let i = 0; i < answered.length; i += 5000) {
    const ids = answered.slice(i, i + 5000);
    const row = await storage.db.selectFrom('request_log')
      .select((eb) => [eb.fn.countAll<string>().as('rows'), eb.fn.count<string>('request_id').distinct().as('distinct')])
      .where('request_id', 'in', ids).executeTakeFirstOrThrow();
    rows += Number(row.rows);
    distinct += Number(row.distinct);
  }
  return { rows, distinct };
}
let found = await logged();
const waitUntil = Date.now() + 60_000;
while (found.distinct < answered.length && Date.now() < waitUntil) {
  await new Promise((resolve) => setTimeout(resolve, 500));
  found = await logged();
}
const complete = (performance.now() - killedAt) / 1000;

console.log(`node ${process.version}, ${os.availableParallelism()} CPUs; API process killed with SIGKILL after ${((killedAt - started) / 1000).toFixed(1)} s of load from ${concurrency} clients`);
console.log(`responses received:        ${answered.length} (${(answered.length / ((killedAt - started) / 1000)).toFixed(0)} req/s; ${failed} requests cut off by the kill, never answered)`);
console.log(`of them in the audit log:   ${found.distinct} (${found.rows} rows: ${found.rows - found.distinct} written twice)`);
console.log(`missing:                    ${answered.length - found.distinct}; all written ${complete.toFixed(1)} s after the kill`);

await storage.close();
await worker.close();
