import { expect } from 'chai';
import { openStorage, type Storage } from '../src/storage/connection.js';
import { migrateDown, migrateToLatest } from '../src/storage/migrate.js';
import { writeAuditBatch } from '../src/monitor/request-log.repository.js';
import type { AuditEntry } from '../src/monitor/audit-entry.js';
import { agentToken } from '../src/monitor/audit-rollup.js';
import type { AuditScope, TimeRange } from '../src/monitor/audit-range.js';
import { listEntries, totals, type AuditFilter } from '../src/monitor/audit-query.repository.js';
import { usageRollups } from '../src/monitor/usage-rollups.repository.js';
import { errorFacts, requestTotals } from '../src/monitor/error-rollups.repository.js';
import { latencyBucket } from '../src/monitor/latency-buckets.js';
import { newRequestId } from '../src/http/middleware/request-id.js';
import { dropFreshDatabase, freshDatabase } from './helpers/run-scope.js';
import { prng } from './helpers/prng.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The monitoring reads over hourly and daily totals, the deployment's own rows and its address
 * sets, against the same figures counted from the entries themselves: traffic of several
 * accounts, modes, keys, endpoints, addresses and errors over four days, read over ranges that
 * start and end anywhere (inside an hour, on the hour, at midnight), for an account and for the
 * whole deployment, with every filter. Then again after the newest migration is undone and
 * applied again, which carries the existing rollups and raw rows over into its tables.
 */
describe('audit rollups: every tier answers what the raw entries say', function () {
  this.timeout(60_000);
  let storage: Storage;
  const random = prng(7);
  const base = Math.floor(Date.UTC(2026, 10, 10, 0, 0, 0) / DAY_MS) * DAY_MS;
  const span = 4 * DAY_MS;
  const entries: AuditEntry[] = [];

  const owners = [
    { accountId: 'acct_a', mode: 'live', keys: ['key_a1', 'key_a2'] },
    { accountId: 'acct_a', mode: 'test', keys: ['key_at'] },
    { accountId: 'acct_b', mode: 'live', keys: ['key_b1'] },
    { accountId: null, mode: null, keys: [null] },
    { accountId: null, mode: 'live', keys: ['master'] },
  ] as const;
  const endpoints = ['/v1/search', '/v1/extract', '/v1/auth/whoami', '/v1/usage'];
  const failures = [[400, 'INVALID_MAX_RESULTS', 'max_results'], [401, 'INVALID_API_KEY', null], [422, 'URL_UNREACHABLE', null], [500, 'INTERNAL_SERVER_ERROR', null]] as const;
  const agents = ['client/1.0 extra', 'other/2', null];

  function makeEntry(at: number): AuditEntry {
    const owner = owners[Math.floor(random() * owners.length)]!;
    const failure = random() < 0.25 ? failures[Math.floor(random() * failures.length)]! : undefined;
    const id = newRequestId(at);
    return {
      entryId: id, requestId: id, occurredAt: new Date(at), principalId: owner.keys[Math.floor(random() * owner.keys.length)]!,
      accountId: owner.accountId, mode: owner.mode, method: 'GET', endpoint: endpoints[Math.floor(random() * endpoints.length)]!,
      status: failure?.[0] ?? 200, responseTimeMs: Math.floor(random() * 3000), ipAddress: `192.0.2.${1 + Math.floor(random() * 12)}`,
      userAgent: agents[Math.floor(random() * agents.length)]!, requestSize: Math.floor(random() * 500), responseSize: Math.floor(random() * 5000),
      cacheHit: random() < 0.2, region: 'local', errorCode: failure?.[1] ?? null, errorParameter: failure?.[2] ?? null, extra: null,
    };
  }

  before(async () => {
    storage = openStorage(await freshDatabase('audit_rollups'), 4);
    await migrateToLatest(storage.db);
    const times = Array.from({ length: 1500 }, () => base + Math.floor(random() * span)).sort((a, b) => a - b);
    // Entries at the very edges of hours and days too.
    times.push(base + DAY_MS, base + DAY_MS - 1, base + 2 * DAY_MS + 5 * HOUR_MS, base + 2 * DAY_MS + 5 * HOUR_MS - 1);
    for (const at of times) entries.push(makeEntry(at));
    // Written in batches out of time order, as writers of several processes do.
    const shuffled = [...entries].sort(() => random() - 0.5);
    for (let i = 0; i < shuffled.length; i += 200) await writeAuditBatch(storage.db, shuffled.slice(i, i + 200));
  });
  after(async () => {
    await storage?.close();
    await dropFreshDatabase('audit_rollups');
  });

  const inScope = (e: AuditEntry, scope: AuditScope) =>
    (scope.accountId === null || e.accountId === scope.accountId) && (scope.mode === null || (e.mode ?? '') === scope.mode);
  const inRange = (e: AuditEntry, range: TimeRange) => e.occurredAt >= range.start && e.occurredAt < range.end;

  const scopes: AuditScope[] = [
    { accountId: 'acct_a', mode: 'live' }, { accountId: 'acct_a', mode: 'test' }, { accountId: 'acct_b', mode: 'live' },
    { accountId: null, mode: null }, { accountId: null, mode: 'live' },
  ];

  function ranges(): TimeRange[] {
    const at = (ms: number) => new Date(base + ms);
    const list: TimeRange[] = [
      { start: at(0), end: at(span) },
      { start: at(-DAY_MS), end: at(span + DAY_MS) },
      { start: at(DAY_MS), end: at(2 * DAY_MS) },
      { start: at(DAY_MS + 3 * HOUR_MS), end: at(3 * DAY_MS + 5 * HOUR_MS) },
      { start: at(DAY_MS + 3 * HOUR_MS + 1234), end: at(DAY_MS + 7 * HOUR_MS + 99) },
      { start: at(2 * DAY_MS + 5 * HOUR_MS - 1), end: at(2 * DAY_MS + 5 * HOUR_MS + 1) },
      { start: at(DAY_MS - 1), end: at(DAY_MS + 1) },
      { start: at(DAY_MS), end: at(DAY_MS + 10 * HOUR_MS + 5) },
      { start: at(DAY_MS + 10 * HOUR_MS + 5), end: at(2 * DAY_MS) },
    ];
    for (let i = 0; i < 8; i++) {
      const a = Math.floor(random() * span);
      const b = Math.floor(random() * span);
      list.push({ start: at(Math.min(a, b)), end: at(Math.max(a, b) + 1) });
    }
    return list;
  }

  async function checkAudit(): Promise<void> {
    for (const range of ranges()) {
      for (const scope of scopes) {
        for (const extra of [{}, { endpoint: '/v1/search' }, { failed: true }, { failed: false }, { endpoint: '/v1/extract', failed: true }]) {
          const filter: AuditFilter = { ...scope, range, ...extra };
          const matching = entries.filter((e) => inScope(e, scope) && inRange(e, range)
            && (filter.endpoint === undefined || e.endpoint === filter.endpoint) && (filter.failed === undefined || (e.status >= 400) === filter.failed));
          const got = await totals(storage.db, filter);
          const what = `${JSON.stringify(filter)}`;
          expect(got.requests, what).to.equal(matching.length);
          expect(got.errors, what).to.equal(matching.filter((e) => e.status >= 400).length);
          expect(got.latencyMsSum, what).to.equal(matching.reduce((s, e) => s + e.responseTimeMs, 0));
          expect(got.uniqueIps, what).to.equal(new Set(matching.map((e) => e.ipAddress)).size);
          const byEndpoint = new Map<string, number>();
          for (const e of matching) byEndpoint.set(e.endpoint, (byEndpoint.get(e.endpoint) ?? 0) + 1);
          expect(new Map([...got.byEndpoint].sort()), what).to.deep.equal(new Map([...byEndpoint].sort()));
        }
      }
    }
  }

  it('totals, filters and distinct addresses of any range', checkAudit);

  it('pages newest first at any offset', async () => {
    const range = { start: new Date(base + DAY_MS + 1000), end: new Date(base + 3 * DAY_MS) };
    for (const scope of scopes) {
      for (const extra of [{}, { endpoint: '/v1/usage' }, { failed: true }]) {
        const filter: AuditFilter = { ...scope, range, ...extra };
        const expected = entries.filter((e) => inScope(e, scope) && inRange(e, range)
          && (filter.endpoint === undefined || e.endpoint === filter.endpoint) && (filter.failed === undefined || (e.status >= 400) === filter.failed))
          .sort((a, b) => b.occurredAt.getTime() - a.occurredAt.getTime());
        for (const offset of [0, 7, expected.length - 3]) {
          const page = await listEntries(storage.db, filter, 10, Math.max(0, offset));
          // Entries of the same millisecond are ordered by insertion: compare the times, and the set of each page.
          expect(page.map((e) => e.occurredAt.getTime()), JSON.stringify(filter)).to.deep.equal(
            expected.slice(Math.max(0, offset), Math.max(0, offset) + 10).map((e) => e.occurredAt.getTime()));
        }
      }
    }
  });

  async function checkUsage(): Promise<void> {
    const hourRanges: TimeRange[] = [
      { start: new Date(base), end: new Date(base + span) },
      { start: new Date(base + 5 * HOUR_MS), end: new Date(base + 3 * DAY_MS + 2 * HOUR_MS) },
      { start: new Date(base + DAY_MS + 5 * HOUR_MS), end: new Date(base + DAY_MS + 9 * HOUR_MS) },
    ];
    for (const range of hourRanges) {
      for (const scope of scopes) {
        const matching = entries.filter((e) => inScope(e, scope) && inRange(e, range));
        const what = `${JSON.stringify(scope)} ${range.start.toISOString()}`;
        const usage = await usageRollups(storage.db, scope, range, 'hour');
        const sums = (list: AuditEntry[]) => ({
          requests: list.length, errors: list.filter((e) => e.status >= 400).length, cacheHits: list.filter((e) => e.cacheHit).length,
          latencyMsSum: list.reduce((s, e) => s + e.responseTimeMs, 0),
        });
        const group = (key: (e: AuditEntry) => string | number) => {
          const groups = new Map<string | number, AuditEntry[]>();
          for (const e of matching) groups.set(key(e), [...(groups.get(key(e)) ?? []), e]);
          return new Map([...groups].map(([k, list]) => [k, sums(list)] as const).sort((a, b) => (a[0] < b[0] ? -1 : 1)));
        };
        const sorted = <K, V>(map: Map<K, V>) => new Map([...map].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
        expect(sorted(usage.buckets), what).to.deep.equal(group((e) => Math.floor(e.occurredAt.getTime() / HOUR_MS) * HOUR_MS));
        expect(sorted(usage.endpoints), what).to.deep.equal(group((e) => e.endpoint));
        expect(sorted(usage.keys), what).to.deep.equal(group((e) => e.principalId ?? ''));
        const histogram = new Array<number>(14).fill(0);
        for (const e of matching) histogram[latencyBucket(e.responseTimeMs)]!++;
        expect(usage.latency, what).to.deep.equal(histogram);

        const facts = await errorFacts(storage.db, scope, range);
        const failed = matching.filter((e) => e.status >= 400);
        const expected = new Map<string, { errors: number; latencyMsSum: number; endpoints: Map<string, number>; parameters: Map<string, number>;
          agents: Map<string, number>; hoursOfDay: number[] }>();
        const count = (map: Map<string, number>, key: string) => {
          if (key !== '') map.set(key, (map.get(key) ?? 0) + 1);
        };
        for (const e of failed) {
          const code = e.errorCode!;
          const of = expected.get(code)
            ?? { errors: 0, latencyMsSum: 0, endpoints: new Map(), parameters: new Map(), agents: new Map(), hoursOfDay: new Array<number>(24).fill(0) };
          of.errors++;
          of.latencyMsSum += e.responseTimeMs;
          count(of.endpoints, e.endpoint);
          count(of.parameters, e.errorParameter ?? '');
          count(of.agents, agentToken(e.userAgent));
          of.hoursOfDay[e.occurredAt.getUTCHours()]!++;
          expected.set(code, of);
        }
        expect(facts, what).to.deep.equal(expected);
        expect(await requestTotals(storage.db, scope, range), what).to.deep.equal({ requests: matching.length, errors: failed.length });
      }
    }
  }

  it('usage by hour, endpoint and key, and errors by code, hour of day and request totals', checkUsage);

  it('answers the same after the newest migration carries the existing rows over', async () => {
    await migrateDown(storage.db);
    await migrateToLatest(storage.db);
    await checkAudit();
    await checkUsage();
  });
});
