/**
 * What one audit writer costs: the generated traffic of bench/monitor/audit-scale.ts (a busy
 * hour of a deployment of 50 accounts) written with writeAuditBatch in batches of 500, as the
 * writers take them from the stream, into a database of its own (dropped afterwards). Prints
 * entries per second, this process's CPU per entry and, when the MariaDB server runs on this
 * machine (BENCH_MYSQLD_PID, or found by name in /proc), the server's CPU per entry.
 *
 *   npm run build && node dist/bench/monitor/audit-writer.js
 *   BENCH_ENTRIES=100000 node dist/bench/monitor/audit-writer.js
 */
import { sql } from 'kysely';
import { openStorage } from '../../src/storage/connection.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { writeAuditBatch } from '../../src/monitor/request-log.repository.js';
import { databaseUrl } from '../../test/helpers/database.js';
import { TrafficGenerator } from './audit-data.js';
import { cpuOf, processNamed } from '../process-cpu.js';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 50_000);
const BATCH = 500;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const server = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
const DATABASE = 'sev_bench_audit_writer';

function mysqldPid(): number | undefined {
  return process.env.BENCH_MYSQLD_PID ? Number(process.env.BENCH_MYSQLD_PID) : processNamed(/^(mariadbd|mysqld)$/);
}

const end = Date.UTC(2026, 10, 24, 21);
const accounts = Array.from({ length: 50 }, (_, i) => ({ id: `acct_${i}`, live: [`key_${i}_a`, `key_${i}_b`], test: i % 4 === 0 ? [] : [`key_${i}_t`] }));
const generator = new TrafficGenerator({ seed: 1, rows: 10_000_000, start: end - 60 * 86_400_000, end, accounts });
// From 10:00 UTC of a weekday on: the busy hours.
const entries = generator.day(Date.UTC(2026, 10, 18)).slice(60_000, 60_000 + ENTRIES);
const mysqld = mysqldPid();
const admin = openStorage(server, 1);

for (let round = 1; round <= ROUNDS; round++) {
  await sql`DROP DATABASE IF EXISTS ${sql.id(DATABASE)}`.execute(admin.db);
  await sql`CREATE DATABASE ${sql.id(DATABASE)}`.execute(admin.db);
  const storage = openStorage(databaseUrl(server, DATABASE), 2);
  await migrateToLatest(storage.db);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const serverCpu = mysqld !== undefined ? cpuOf(mysqld) : 0;
  for (let i = 0; i < entries.length; i += BATCH) await writeAuditBatch(storage.db, entries.slice(i, i + BATCH));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const serverUsed = mysqld !== undefined ? `; MariaDB CPU ${((cpuOf(mysqld) - serverCpu) / entries.length).toFixed(1)} µs/entry` : '';
  console.log(`round ${round}: ${entries.length.toLocaleString('en')} entries in ${seconds.toFixed(2)} s, ${(entries.length / seconds).toFixed(0)} entries/s; `
    + `writer CPU ${((used.user + used.system) / entries.length).toFixed(1)} µs/entry${serverUsed}`);
  await storage.close();
}
await sql`DROP DATABASE IF EXISTS ${sql.id(DATABASE)}`.execute(admin.db);
await admin.close();
