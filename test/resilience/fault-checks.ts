import { expect } from 'chai';
import { sql } from 'kysely';
import type { Storage } from '../../src/storage/connection.js';
import { dayOf, monthOf } from '../../src/usage/periods.js';
import { call } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';
import { FaultLoad, TIME_LIMIT_MS, type Kind, type Outcome } from './fault-load.js';
import { PAGES, type FaultAccount, type FaultWorld } from './fault-world.js';

/**
 * What the fault tests check after a run of FaultLoad: every answer against its time limit,
 * how long the service took to answer correctly again, and that every answered request reached
 * the audit log and the usage counts.
 */

export interface OutageFigures {
  requests: number;
  byStatus: Record<string, number>;
  /** Slowest answer of each kind to a request sent, or in flight, while the dependency was away, ms. */
  slowestDuring: Partial<Record<Kind, number>>;
  /** From the stop to the first 503 SERVICE_UNAVAILABLE answer, ms. */
  firstRefusalMs: number | undefined;
  /** From the dependency's return until every kind of request has been answered correctly and every request sent since is, ms. */
  recoveryMs: number;
  /** What broke the rules (see judgeOutage). */
  violations: string[];
}

/** The route's own answer when its time limit passes while Redis answers: an answer in time, not an outage's. */
const TIME_OUTS = new Set(['SEARCH_TIMEOUT', 'EXTRACT_TIMEOUT']);

/** The longest the service may take to answer everything correctly again once its dependency is back (issue 20). */
export const RECOVERY_TARGET_MS = 10_000;

/**
 * Reads a run with an outage from `downAt` to `backAt` (the dependency answering again). Every
 * request must be answered, within its time limit + 1 s (kinds without one: `promptMs` + 1 s),
 * and correctly, except that a request in flight during the outage or sent before the recovery
 * target has passed may be answered 503 SERVICE_UNAVAILABLE with its `estimated_recovery`, or
 * with its route's time-out error. The recovery ends once each kind has been answered correctly
 * to a request sent after `backAt`, and nothing sent after `backAt` was answered otherwise later.
 */
export function judgeOutage(outcomes: Outcome[], downAt: number, backAt: number, promptMs: number): OutageFigures {
  const violations: string[] = [];
  const byStatus: Record<string, number> = {};
  const slowestDuring: Partial<Record<Kind, number>> = {};
  const firstRight = new Map<Kind, number>();
  let firstRefusal: number | undefined;
  let lastWrong = backAt;
  for (const o of outcomes) {
    const ms = o.answeredAt - o.sentAt;
    const label = `${o.kind} ${o.status ?? 'no answer'}${o.code ? ` ${o.code}` : ''}`;
    byStatus[label] = (byStatus[label] ?? 0) + 1;
    const limit = (TIME_LIMIT_MS[o.kind] ?? promptMs) + 1000;
    const at = `sent ${((o.sentAt - downAt) / 1000).toFixed(1)} s after the stop, answered in ${(ms / 1000).toFixed(1)} s`;
    const during = o.sentAt < backAt + RECOVERY_TARGET_MS && o.answeredAt >= downAt;
    const outageAnswer = (o.status === 503 && o.code === 'SERVICE_UNAVAILABLE' && Boolean(o.estimatedRecovery)) || TIME_OUTS.has(o.code ?? '');
    if (o.status === null) violations.push(`${label} (${o.failure}), ${at}`);
    else if (!o.correct && !(during && outageAnswer)) violations.push(`${label}${o.status < 300 ? ' (not what was asked for)' : ''}, ${at}`);
    if (ms > limit) violations.push(`${label} past its limit of ${limit / 1000} s, ${at}`);
    if (o.sentAt < backAt && o.answeredAt >= downAt) slowestDuring[o.kind] = Math.max(slowestDuring[o.kind] ?? 0, ms);
    if (o.status === 503 && o.answeredAt >= downAt) firstRefusal = Math.min(firstRefusal ?? Infinity, o.answeredAt - downAt);
    if (o.sentAt >= backAt) {
      if (o.correct) firstRight.set(o.kind, Math.min(firstRight.get(o.kind) ?? Infinity, o.answeredAt));
      else lastWrong = Math.max(lastWrong, o.answeredAt);
    }
  }
  const kinds = new Set(outcomes.map((o) => o.kind));
  const recovered = Math.max(lastWrong, ...[...kinds].map((kind) => firstRight.get(kind) ?? Infinity));
  return { requests: outcomes.length, byStatus, slowestDuring, firstRefusalMs: firstRefusal, recoveryMs: recovered - backAt, violations };
}

export interface Reconciliation {
  answered: number;
  /** Answered requests with exactly one audit row, and those with more than one. */
  audited: number;
  auditedTwice: number;
  /** The load key's request total for the day in GET /v1/usage, read once the log is complete. */
  usageTotal: number;
  /** Requests the quotas counted as the answers show it: their rate-limit headers, set once the request is counted. */
  counted: number;
  /** 503s without a rate-limit window: refused before or while the quotas counted them (a count whose reply was lost is among them). */
  uncountedRefusals: number;
  /** How the counts grew during the run, as the limits see them (Redis) and as MySQL keeps them. */
  growth: UsageCounts;
}

/**
 * The account's month as GET /v1/usage reports it (the quota counter in Redis) and as MySQL
 * keeps it durably; the load key's day likewise (GET /v1/auth/keys/{id}/usage, MySQL).
 */
export interface UsageCounts {
  month: number;
  durableMonth: number;
  day: number;
  durableDay: number;
}

/** Reads the usage counts once Redis and MySQL agree (MySQL trails by up to a second), or as they are after 5 s. */
export async function usageCounts(storage: Storage, url: string, account: FaultAccount): Promise<UsageCounts> {
  let counts: UsageCounts | undefined;
  await eventually(async () => {
    const now = new Date();
    const [usage, keyUsage, month, day] = await Promise.all([
      call(url, '/v1/usage?period=day', { key: account.ownKey }),
      call(url, `/v1/auth/keys/${account.keyId}/usage`),
      sql<{ requests: number }>`SELECT requests FROM usage_monthly WHERE account_id = ${account.accountId} AND mode = 'live' AND period = ${monthOf(now)}`.execute(storage.db),
      sql<{ requests: number }>`SELECT requests FROM key_usage_daily WHERE key_id = ${account.keyId} AND day = ${dayOf(now)}`.execute(storage.db),
    ]);
    counts = {
      month: Number(usage.json.data?.current_period?.requests_used),
      durableMonth: Number(month.rows[0]?.requests ?? 0),
      day: Number(keyUsage.json.data?.requests_today),
      durableDay: Number(day.rows[0]?.requests ?? 0),
    };
    return counts.month === counts.durableMonth && counts.day === counts.durableDay ? true : undefined;
  }, 5000).catch(() => undefined);
  return counts!;
}

/**
 * Waits (up to `withinMs`) for every answered request of the run to reach the audit log, then
 * reads the load key's usage through the API, and the usage counts against `before`.
 */
export async function reconcile(outcomes: Outcome[], storage: Storage, url: string, account: FaultAccount, before: UsageCounts, withinMs: number): Promise<Reconciliation> {
  const ids = outcomes.filter((o) => o.status !== null && o.requestId).map((o) => o.requestId!);
  const loggedIds = async () => {
    const found = new Map<string, number>();
    for (let i = 0; i < ids.length; i += 1000) {
      const { rows } = await sql<{ id: string; n: number }>`SELECT request_id AS id, COUNT(*) AS n FROM request_log WHERE request_id IN (${sql.join(ids.slice(i, i + 1000))}) GROUP BY request_id`.execute(storage.db);
      for (const row of rows) found.set(row.id, Number(row.n));
    }
    return found;
  };
  let logged = new Map<string, number>();
  await eventually(async () => {
    logged = await loggedIds();
    return logged.size === ids.length ? true : undefined;
  }, withinMs).catch(() => undefined);
  // The rollups are written in the audit rows' transaction: once the rows are in, so are the usage figures.
  const usage = await call(url, '/v1/usage?period=day&include_details=true', { key: account.ownKey });
  const after = await usageCounts(storage, url, account);
  return {
    answered: ids.length,
    audited: [...logged.values()].filter((n) => n === 1).length,
    auditedTwice: [...logged.values()].filter((n) => n > 1).length,
    usageTotal: usage.json.data?.key_usage?.[account.keyId]?.requests ?? 0,
    counted: outcomes.filter((o) => o.counted).length,
    uncountedRefusals: outcomes.filter((o) => o.status === 503 && !o.counted).length,
    growth: {
      month: after.month - before.month,
      durableMonth: after.durableMonth - before.durableMonth,
      day: after.day - before.day,
      durableDay: after.durableDay - before.durableDay,
    },
  };
}

export interface OutageRun {
  figures: OutageFigures;
  books: Reconciliation;
  /** From starting the dependency's process to its answering (loading its data). */
  startMs: number;
}

export interface OutageOptions {
  dependency: 'Redis' | 'MySQL';
  /** `stop`: SIGTERM, a graceful stop; `kill`: SIGKILL. */
  how: 'stop' | 'kill';
  clients: number;
  /** Load before the stop, length of the outage, load after the return. */
  leadMs: number;
  outageMs: number;
  afterMs: number;
}

/**
 * Routes without a time limit of their own (the cache, whoami, usage) meet an outage through a
 * Redis command that fails after one reconnection attempt (at most a second apart) or a MySQL
 * connection refused or reset: they are held to 5 s, more than that with room for a loaded machine.
 */
const PROMPT_MS = 5000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * FaultLoad against `url` with the account's load key while the dependency is stopped or
 * killed, left away for a while and started again; then the run's figures and books.
 */
export async function runOutage(world: FaultWorld, url: string, account: FaultAccount, options: OutageOptions): Promise<OutageRun> {
  const server = options.dependency === 'Redis' ? world.redis : world.mariadb;
  const before = await usageCounts(world.storage, url, account);
  const load = new FaultLoad(url, account.key, world.site.url, PAGES);
  load.start(options.clients);
  await sleep(options.leadMs);
  const downAt = Date.now();
  await (options.how === 'stop' ? server.stop() : server.kill());
  await sleep(options.outageMs);
  const launchedAt = Date.now();
  await server.start();
  const backAt = Date.now();
  await sleep(options.afterMs);
  const outcomes = await load.stop();
  const figures = judgeOutage(outcomes, downAt, backAt, PROMPT_MS);
  const books = await reconcile(outcomes, world.storage, url, account, before, 30_000);
  return { figures, books, startMs: backAt - launchedAt };
}

/** The targets of issue 20 for a dependency stopped and started under load. */
export function expectOutageHeld(run: OutageRun): void {
  const { figures, books } = run;
  expect(figures.violations, `${figures.violations.length} answers broke the rules`).to.deep.equal([]);
  expect(figures.recoveryMs, 'ms from the dependency\'s return to every request answered correctly').to.be.below(RECOVERY_TARGET_MS);
  expect(books.audited, `answered requests with their audit row, of ${books.answered}`).to.equal(books.answered);
  expect(books.auditedTwice, 'answered requests with two audit rows').to.equal(0);
  expect(books.usageTotal, 'the load key\'s requests in GET /v1/usage').to.equal(books.answered);
  // Redis counted every request whose answer shows it counted, and perhaps some refused while their count's reply was lost.
  expect(books.growth.month, 'the account\'s month').to.be.within(books.counted, books.counted + books.uncountedRefusals);
  expect(books.growth.day, 'the key\'s day, the account\'s only counted key').to.equal(books.growth.month);
  expect(books.growth.durableMonth, 'the account\'s month in MySQL').to.equal(books.growth.month);
  expect(books.growth.durableDay, 'the key\'s day in MySQL').to.equal(books.growth.day);
}

/** The run's figures, for the test's output. */
export function describeOutage(name: string, run: OutageRun): string[] {
  const { figures: f, books: b } = run;
  const seconds = (ms: number | undefined) => (ms === undefined ? 'none' : `${(ms / 1000).toFixed(1)} s`);
  const slowest = Object.entries(f.slowestDuring).map(([kind, ms]) => `${kind} ${seconds(ms)}`).join(', ');
  return [
    `${name}: ${f.requests} requests; first 503 ${seconds(f.firstRefusalMs)} after the stop; slowest answers in flight during the outage: ${slowest}`,
    `  back ${seconds(run.startMs)} after its start; every kind answered correctly again ${seconds(f.recoveryMs)} after that`,
    `  ${b.answered} answered, ${b.audited} in the audit log once, ${b.auditedTwice} twice, ${b.usageTotal} in GET /v1/usage; `
      + `${b.counted} counted by their answers, the month grew ${b.growth.month} (MySQL ${b.growth.durableMonth}), the key's day ${b.growth.day} (MySQL ${b.growth.durableDay})`,
    `  ${JSON.stringify(f.byStatus)}`,
  ];
}
