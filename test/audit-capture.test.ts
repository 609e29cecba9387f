import { expect } from 'chai';
import { openStorage, type Storage } from '../src/storage/connection.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { writeAuditBatch } from '../src/monitor/request-log.repository.js';
import { decodeEntries, encodeEntries, type AuditEntry } from '../src/monitor/audit-entry.js';
import { AuditCapture } from '../src/monitor/audit-capture.js';
import { auditStreamKey } from '../src/monitor/audit-stream.js';
import { RetentionJob } from '../src/monitor/retention.js';
import { openRedis } from '../src/redis/connection.js';
import { createLogger } from '../src/log/logger.js';
import { newRequestId } from '../src/http/middleware/request-id.js';
import { call, startTestService, type TestService } from './helpers/service.js';
import { dropFreshDatabase, freshDatabase, runPrefix } from './helpers/run-scope.js';
import { databaseUrl } from './helpers/database.js';
import { TcpProxy } from './helpers/tcp-proxy.js';
import { until } from './helpers/wait.js';

function entry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  const id = newRequestId();
  return {
    entryId: id, requestId: id, occurredAt: new Date(), principalId: 'key_1', accountId: 'acct_1', mode: 'live', method: 'GET',
    endpoint: '/v1/auth/whoami', status: 200, responseTimeMs: 12, ipAddress: '192.0.2.1', userAgent: 'client/1', requestSize: 0,
    responseSize: 100, cacheHit: false, region: 'local', errorCode: null, errorParameter: null, extra: null, ...overrides,
  };
}

async function countLogged(storage: Storage, requestIds: string[]): Promise<number> {
  if (requestIds.length === 0) return 0;
  const row = await storage.db.selectFrom('request_log').select((eb) => eb.fn.countAll<string>().as('n')).where('request_id', 'in', requestIds).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('audit capture: nothing lost, nothing twice', function () {
  this.timeout(90_000);
  let storage: Storage;
  let dbUrl: string;

  before(async () => {
    dbUrl = await freshDatabase('audit_capture');
    storage = openStorage(dbUrl, 4);
    await migrateToLatest(storage.db);
  });
  after(async () => {
    await storage?.close();
    await dropFreshDatabase('audit_capture');
  });

  it('writes a batch delivered twice once, in the log and in every rollup', async () => {
    const entries = [entry(), entry({ status: 400, errorCode: 'INVALID_PARAMETER', errorParameter: 'limit' }), entry({ ipAddress: '192.0.2.2' })];
    // A client may reuse its own request id: two requests, two entries.
    entries.push(entry({ requestId: entries[0]!.requestId }));
    expect(await writeAuditBatch(storage.db, entries)).to.deep.equal({ written: 4, duplicates: 0 });
    expect(await writeAuditBatch(storage.db, [...entries, entries[1]!])).to.deep.equal({ written: 0, duplicates: 5 });

    expect(await countLogged(storage, entries.map((e) => e.requestId))).to.equal(4);
    const hourly = await storage.db.selectFrom('audit_hourly').select((eb) => [eb.fn.sum<string>('requests').as('r'), eb.fn.sum<string>('errors').as('e')])
      .where('account_id', '=', 'acct_1').executeTakeFirstOrThrow();
    expect([Number(hourly.r), Number(hourly.e)]).to.deep.equal([4, 1]);
    const errors = await storage.db.selectFrom('audit_errors_hourly').selectAll().where('account_id', '=', 'acct_1').execute();
    expect(errors.map((e) => [e.error_code, e.parameter, e.agent, Number(e.errors)])).to.deep.equal([['INVALID_PARAMETER', 'limit', 'client/1', 1]]);
    // The whole deployment's row beside the account's.
    const deployment = await storage.db.selectFrom('audit_errors_hourly').select('errors').where('account_id', '=', '*').execute();
    expect(deployment.map((e) => Number(e.errors))).to.deep.equal([1]);
    const ips = await storage.db.selectFrom('audit_ips_daily').select('ip').distinct().where('account_id', '=', 'acct_1').execute();
    expect(ips.map((r) => r.ip).sort()).to.deep.equal(['192.0.2.1', '192.0.2.2']);
    // The totals of the account and of the whole deployment (*), per endpoint, per key and in all.
    for (const table of ['audit_totals_hourly', 'audit_totals_daily'] as const) {
      const totals = await storage.db.selectFrom(table).select(['account_id', 'key_id', 'endpoint', 'requests', 'errors']).where('account_id', 'in', ['acct_1', '*'])
        .orderBy('account_id').orderBy('key_id').orderBy('endpoint').execute();
      expect(totals.map((t) => [t.account_id, t.key_id, t.endpoint, Number(t.requests), Number(t.errors)]), table).to.deep.equal([
        ['*', '*', '*', 4, 1], ['*', '*', '/v1/auth/whoami', 4, 1], ['*', 'key_1', '*', 4, 1],
        ['acct_1', '*', '*', 4, 1], ['acct_1', '*', '/v1/auth/whoami', 4, 1], ['acct_1', 'key_1', '*', 4, 1],
      ]);
    }
    const facets = await storage.db.selectFrom('audit_error_facets_daily').select(['account_id', 'error_code', 'facet', 'value', 'errors'])
      .orderBy('account_id').orderBy('facet').execute();
    expect(facets.map((e) => [e.account_id, e.error_code, e.facet, e.value, Number(e.errors)])).to.deep.equal([
      ['*', 'INVALID_PARAMETER', 'agent', 'client/1', 1], ['*', 'INVALID_PARAMETER', 'endpoint', '/v1/auth/whoami', 1], ['*', 'INVALID_PARAMETER', 'parameter', 'limit', 1],
      ['acct_1', 'INVALID_PARAMETER', 'agent', 'client/1', 1], ['acct_1', 'INVALID_PARAMETER', 'endpoint', '/v1/auth/whoami', 1], ['acct_1', 'INVALID_PARAMETER', 'parameter', 'limit', 1],
    ]);
    const seen = await storage.db.selectFrom('audit_ips_deployment_daily').selectAll().orderBy('ip').orderBy('failed').execute();
    expect(seen.map((r) => [r.ip, Number(r.failed)])).to.deep.equal([['192.0.2.1', 0], ['192.0.2.1', 1], ['192.0.2.2', 0]]);
    const first = entries.filter((e) => e.ipAddress === '192.0.2.1' && e.status < 400).map((e) => e.occurredAt.getTime());
    expect([seen[0]!.first_seen.getTime(), seen[0]!.last_seen.getTime()]).to.deep.equal([Math.min(...first), Math.max(...first)]);
  });

  it('writes only the new entries of a batch that holds some written before', async () => {
    const written = [entry({ accountId: 'acct_part' }), entry({ accountId: 'acct_part' })];
    expect(await writeAuditBatch(storage.db, written)).to.deep.equal({ written: 2, duplicates: 0 });
    const fresh = entry({ accountId: 'acct_part', status: 404, errorCode: 'NOT_FOUND' });
    expect(await writeAuditBatch(storage.db, [written[1]!, fresh, written[0]!])).to.deep.equal({ written: 1, duplicates: 2 });
    expect(await countLogged(storage, [...written, fresh].map((e) => e.requestId))).to.equal(3);
    const hourly = await storage.db.selectFrom('audit_hourly').select((eb) => [eb.fn.sum<string>('requests').as('r'), eb.fn.sum<string>('errors').as('e')])
      .where('account_id', '=', 'acct_part').executeTakeFirstOrThrow();
    expect([Number(hourly.r), Number(hourly.e)]).to.deep.equal([3, 1]);
  });

  it('deletes raw rows and rollups past their retention, once per hour across processes', async () => {
    const old = new Date(Date.now() - 100 * 86_400_000);
    const older = new Date(Date.now() - 800 * 86_400_000);
    await writeAuditBatch(storage.db, [entry({ accountId: 'acct_old', occurredAt: old }), entry({ accountId: 'acct_old', occurredAt: older })]);
    // An alert's delivery log goes with the raw rows, its state changes with the rollups.
    const delivery = (id: string, at: Date) => ({
      id, alert_id: 'alrt_old', account_id: 'acct_old', mode: 'live', event_id: `evt_${id}`, event: 'alert.firing', channel: 'webhook',
      destination: 'https://hooks.example.com', target: '{}', notification: '{}', status: 'delivered', created_at: at, updated_at: at,
    });
    await storage.db.insertInto('notification_deliveries').values([delivery('dlv_old', old), delivery('dlv_new', new Date())]).execute();
    const event = (id: string, at: Date) => ({ event_id: id, alert_id: 'alrt_old', from_state: 'pending', to_state: 'firing', value: 1, message: 'm', occurred_at: at });
    await storage.db.insertInto('alert_events').values([event('evt_older', older), event('evt_old', old)]).execute();
    const redis = openRedis('redis://127.0.0.1:6379', { lost: () => undefined, restored: () => undefined });
    try {
      const prefix = runPrefix();
      const logger = createLogger('silent', 'all');
      const jobs = [1, 2].map(() => new RetentionJob(redis, storage.db, prefix, { auditDays: 90, rollupDays: 730 }, logger));
      const ran = await Promise.all(jobs.map((job) => job.runIfLeased()));
      expect(ran.filter(Boolean), 'one process runs it').to.have.length(1);
      const raw = await storage.db.selectFrom('request_log').select('occurred_at').where('account_id', '=', 'acct_old').execute();
      expect(raw).to.have.length(0);
      const rollups = await storage.db.selectFrom('audit_hourly').select('hour').where('account_id', '=', 'acct_old').execute();
      // The 100-day-old hour is kept as a rollup (730 days); the 800-day-old one is gone.
      expect(rollups.map((r) => r.hour.getTime())).to.deep.equal([Math.floor(old.getTime() / 3_600_000) * 3_600_000]);
      const totals = await storage.db.selectFrom('audit_totals_hourly').select('hour').distinct().where('account_id', '=', 'acct_old').execute();
      expect(totals.map((r) => r.hour.getTime())).to.deep.equal([Math.floor(old.getTime() / 3_600_000) * 3_600_000]);
      const days = await storage.db.selectFrom('audit_totals_daily').select('day').distinct().where('account_id', '=', 'acct_old').execute();
      expect(days.map((r) => r.day.getTime())).to.deep.equal([Math.floor(old.getTime() / 86_400_000) * 86_400_000]);
      // The deployment's addresses go with the raw rows (90 days).
      const ips = await storage.db.selectFrom('audit_ips_deployment_daily').select('day').where('day', '<', new Date(Date.now() - 90 * 86_400_000)).execute();
      expect(ips).to.have.length(0);
      expect((await storage.db.selectFrom('notification_deliveries').select('id').where('alert_id', '=', 'alrt_old').execute()).map((r) => r.id)).to.deep.equal(['dlv_new']);
      expect((await storage.db.selectFrom('alert_events').select('event_id').where('alert_id', '=', 'alrt_old').execute()).map((r) => r.event_id)).to.deep.equal(['evt_old']);
    } finally {
      redis.disconnect();
    }
  });

  it('hands an entry recorded while its connection is still opening to Redis, not to memory', async () => {
    // A process answers its first requests right after it starts listening; a kill -9 then must
    // not lose their entries to a buffer that waited for a connection that was only opening.
    const prefix = runPrefix();
    const redis = openRedis('redis://127.0.0.1:6379', { lost: () => undefined, restored: () => undefined });
    const capture = new AuditCapture(redis, prefix, { dropped: () => undefined, buffered: () => undefined }, createLogger('silent', 'all'),
      { maxBacklog: 1000, maxBuffered: 1000, handoffTimeoutMs: 5000 });
    const reader = openRedis('redis://127.0.0.1:6379', { lost: () => undefined, restored: () => undefined });
    try {
      expect(redis.status, 'recorded before the connection is ready').to.not.equal('ready');
      const recorded = entry();
      await capture.record(recorded);
      expect(capture.pending().buffered, 'nothing left in memory').to.equal(0);
      const records = await reader.xrange(auditStreamKey(prefix), '-', '+');
      expect(records.flatMap(([, fields]) => decodeEntries(fields[1]!).entries.map((e) => e.entryId))).to.deep.equal([recorded.entryId]);
    } finally {
      await capture.close();
      redis.disconnect();
      await reader.del(auditStreamKey(prefix));
      reader.disconnect();
    }
  });

  it('keeps entries in memory without waiting while Redis is away, and hands them over when it returns', async () => {
    const prefix = runPrefix();
    const { proxy, port } = await TcpProxy.start(6379);
    const redis = openRedis(`redis://127.0.0.1:${port}`, { lost: () => undefined, restored: () => undefined });
    const capture = new AuditCapture(redis, prefix, { dropped: () => undefined, buffered: () => undefined }, createLogger('silent', 'all'),
      { maxBacklog: 1000, maxBuffered: 1000, handoffTimeoutMs: 5000 });
    const reader = openRedis('redis://127.0.0.1:6379', { lost: () => undefined, restored: () => undefined });
    try {
      await until(async () => redis.status === 'ready', 5000);
      proxy.cut();
      await until(async () => redis.status !== 'ready', 5000);
      const recorded = entry();
      const started = performance.now();
      await capture.record(recorded);
      expect(performance.now() - started, 'an answer does not wait for an absent Redis').to.be.below(500);
      expect(capture.pending().buffered).to.equal(1);
      proxy.restore();
      await until(async () => capture.pending().buffered === 0, 10_000);
      const records = await reader.xrange(auditStreamKey(prefix), '-', '+');
      expect(records.flatMap(([, fields]) => decodeEntries(fields[1]!).entries.map((e) => e.entryId))).to.deep.equal([recorded.entryId]);
    } finally {
      proxy.restore();
      await capture.close();
      await proxy.close();
      await reader.del(auditStreamKey(prefix));
      reader.disconnect();
    }
  });

  describe('while MySQL is unreachable', () => {
    let proxy: TcpProxy;
    let service: TestService;

    before(async () => {
      const started = await TcpProxy.start(3306);
      proxy = started.proxy;
      const name = new URL(dbUrl).pathname.slice(1);
      service = await startTestService({ DATABASE_URL: databaseUrl(`mysql://root@127.0.0.1:${started.port}`, name), SHUTDOWN_TIMEOUT_MS: '3000' });
    });
    after(async () => {
      proxy.restore();
      await service?.close();
      await proxy?.close();
    });

    it('keeps the entries of requests answered meanwhile and writes them when it returns', async () => {
      proxy.cut();
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await call(service.url, '/v1/auth/whoami');
        expect(res.status).to.equal(200);
        ids.push(res.json.request_id);
      }
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await countLogged(storage, ids), 'nothing written during the outage').to.equal(0);
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      expect(metrics).to.match(/sev_audit_batch_retries_total\{[^}]*\} [1-9]/);

      proxy.restore();
      await until(async () => (await countLogged(storage, ids)) === ids.length, 30_000);
    });
  });
});

describe('audit stream records', () => {
  it('read back every field of entries that share some fields and differ in others', () => {
    const first = entry({ extra: { query_hash: 'sha256:ab', sources_analyzed: 5 }, userAgent: null });
    const entries = [
      first,
      entry({ occurredAt: new Date(first.occurredAt.getTime() + 3), extra: { query_hash: 'sha256:ab', sources_analyzed: 5 }, userAgent: null }),
      // A client's own request id, reused: the entry keeps its own id.
      { ...entry({ status: 429, errorCode: 'RATE_LIMITED', errorParameter: 'limit', cacheHit: true }), requestId: first.requestId },
      entry({ occurredAt: new Date(first.occurredAt.getTime() - 2), principalId: null, accountId: null, mode: null, ipAddress: '2001:db8::1', extra: null }),
      entry({ method: 'POST', endpoint: '/v1/search', requestSize: 52, responseSize: 5300, region: 'eu-west', extra: { validation_result: 'FALSE' } }),
    ];
    const text = encodeEntries(entries);
    expect(decodeEntries(text)).to.deep.equal({ entries, unreadable: 0 });
    // The second entry repeats the first but for its ids and time: a fraction of the first's bytes.
    expect(encodeEntries(entries.slice(0, 2)).length - encodeEntries(entries.slice(0, 1)).length).to.be.below(encodeEntries(entries.slice(0, 1)).length / 3);
  });

  it('reads records of the first version, still in a stream written before an upgrade', () => {
    const e = entry({ extra: { query_hash: 'sha256:cd' } });
    const v1 = JSON.stringify([[e.entryId, e.requestId, e.occurredAt.getTime(), e.principalId, e.accountId, e.mode, e.method, e.endpoint, e.status,
      e.responseTimeMs, e.ipAddress, e.userAgent, e.requestSize, e.responseSize, e.cacheHit, e.region, e.errorCode, e.errorParameter, e.extra]]);
    expect(decodeEntries(v1)).to.deep.equal({ entries: [e], unreadable: 0 });
  });

  it('counts as unreadable a row with a field this version does not know, and the rows after it', () => {
    const rows = JSON.parse(encodeEntries([entry(), entry(), entry()])) as unknown[];
    (rows[2] as number[])[0]! |= 1 << 20;
    const decoded = decodeEntries(JSON.stringify(rows));
    expect([decoded.entries.length, decoded.unreadable]).to.deep.equal([1, 2]);
    // An endpoint's fields that are not a JSON object: that row and those after it.
    const broken = JSON.parse(encodeEntries([entry({ extra: { query_hash: 'sha256:ef' } }), entry()])) as unknown[][];
    (broken[1] as unknown[])[(broken[1] as unknown[]).length - 1] = '{"query_hash":';
    expect(decodeEntries(JSON.stringify(broken)).unreadable).to.equal(2);
    expect(decodeEntries('not json')).to.deep.equal({ entries: [], unreadable: 1 });
  });
});
