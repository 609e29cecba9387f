import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { call, startTestService, TEST_KEY, type TestService } from './helpers/service.js';
import { createAccount, createKey } from './helpers/accounts.js';
import { freshDatabase, dropFreshDatabase } from './helpers/run-scope.js';
import { until } from './helpers/wait.js';

/**
 * GET /v1/audit, /v1/audit/export, /v1/usage and /v1/errors over a traffic mix whose every
 * request is known: totals, filters and pagination must match it exactly. The suite has a
 * database of its own, so the master key's view of the whole deployment is this traffic alone.
 */
describe('monitoring: audit, usage and error analytics', function () {
  this.timeout(60_000);
  let service: TestService;
  let accountA: string;
  let keyA: string;
  let sandboxA: string;
  let keyB: string;
  const sent = { whoami: 0, invalid: 0 };
  let revokedRequestId: string;
  let anonymousRequestId: string;
  let firstWhoamiId: string;

  /** Waits until the audit log holds `total` entries of a filter (entries are written within a second or two). */
  async function auditTotal(query: string, key: string, total: number): Promise<any> {
    let last: any;
    await until(async () => {
      last = await call(service.url, `/v1/audit?${query}`, { key });
      return last.status === 200 && last.json.data.pagination.total === total;
    }, 15_000).catch(() => {
      throw new Error(`audit ${query}: expected ${total}, last answer ${JSON.stringify(last?.json?.data?.pagination ?? last?.json)}`);
    });
    return last.json.data;
  }

  before(async () => {
    service = await startTestService({ DATABASE_URL: await freshDatabase('monitoring') });
    accountA = await createAccount(service.url, 'pro');
    keyA = (await createKey(service.url, { account_id: accountA })).key;
    sandboxA = (await createKey(service.url, { account_id: accountA, mode: 'test' })).key;
    keyB = (await createKey(service.url, { account_id: await createAccount(service.url, 'pro') })).key;
    const doomed = await createKey(service.url, { account_id: accountA });
    expect((await call(service.url, `/v1/auth/keys/${doomed.id}/revoke`, { method: 'POST', body: {} })).status).to.equal(200);

    for (let i = 0; i < 5; i++) {
      const res = await call(service.url, '/v1/auth/whoami', { key: keyA, headers: { 'user-agent': 'good-client/2.0' } });
      expect(res.status).to.equal(200);
      firstWhoamiId ??= res.json.request_id;
      sent.whoami++;
    }
    for (let i = 0; i < 3; i++) {
      const res = await call(service.url, '/v1/search', { key: keyA, body: { query: 'solar panels', max_results: 500 }, headers: { 'user-agent': 'bad-client/1.0 extra' } });
      expect(res.json.error.code).to.equal('INVALID_MAX_RESULTS');
      sent.invalid++;
    }
    const revoked = await call(service.url, '/v1/search', { key: doomed.key, body: { query: 'solar panels' } });
    expect(revoked.status).to.equal(401);
    revokedRequestId = revoked.json.request_id;
    const anonymous = await call(service.url, '/v1/usage', { key: null });
    expect(anonymous.json.error.code).to.equal('MISSING_API_KEY');
    anonymousRequestId = anonymous.json.request_id;
    for (let i = 0; i < 2; i++) expect((await call(service.url, '/v1/auth/whoami', { key: sandboxA })).status).to.equal(200);
    for (let i = 0; i < 2; i++) expect((await call(service.url, '/v1/auth/whoami', { key: keyB })).status).to.equal(200);
  });
  after(async () => {
    await service?.close();
    await dropFreshDatabase('monitoring');
  });

  it('records every request with the fields of its endpoint, newest first', async () => {
    const data = await auditTotal('endpoint=/v1/auth/whoami', keyA, sent.whoami);
    expect(data.entries).to.have.length(5);
    const times = data.entries.map((e: any) => Date.parse(e.timestamp));
    expect(times).to.deep.equal([...times].sort((a, b) => b - a));
    const entry = data.entries.at(-1);
    expect(entry.request_id).to.equal(firstWhoamiId);
    expect(entry).to.include({ endpoint: '/v1/auth/whoami', method: 'GET', status: 200, cache_hit: false, region: 'local', user_agent: 'good-client/2.0' });
    expect(entry.response_time).to.be.a('number').within(0, 5);
    expect(entry.ip_address).to.match(/127\.0\.0\.1/);
    expect(entry.request_size).to.equal(0);
    expect(entry.response_size).to.be.a('number').above(50);
    expect(entry.key_id).to.be.a('string');
    expect(entry).to.not.have.property('error_code');
    expect(data.summary).to.deep.include({ total_requests: 5, success_rate: 1, unique_ips: 1, top_endpoints: ['/v1/auth/whoami'] });
  });

  it('records a search with the hash of its normalised query, and one refused for bad input with its error code', async () => {
    const search = await call(service.url, '/v1/search', { key: keyB, body: { query: '  Solar   PANELS ' } });
    const entry = (await auditTotal(`request_id=${search.json.request_id}`, keyB, 1)).entries[0];
    expect(entry.query_hash).to.equal(`sha256:${createHash('sha256').update('solar panels').digest('hex')}`);
    expect(entry.status).to.equal(search.status);

    const data = await auditTotal('endpoint=/v1/search&status=error', keyA, sent.invalid + 1);
    const invalid = data.entries.filter((e: any) => e.error_code === 'INVALID_MAX_RESULTS');
    expect(invalid).to.have.length(3);
    expect(invalid[0].status).to.equal(400);
    expect(invalid[0].request_size).to.be.above(10);
  });

  it('files a refused key under its account, and an unauthenticated request for the operator', async () => {
    const revoked = await auditTotal(`request_id=${revokedRequestId}`, keyA, 1);
    expect(revoked.entries[0]).to.include({ status: 401, error_code: 'INVALID_API_KEY', endpoint: '/v1/search' });
    const anonymous = await auditTotal(`request_id=${anonymousRequestId}`, TEST_KEY, 1);
    expect(anonymous.entries[0]).to.include({ status: 401, error_code: 'MISSING_API_KEY', endpoint: '/v1/usage', key_id: null });
    // Nobody's account: a key never sees it.
    expect((await call(service.url, `/v1/audit?request_id=${anonymousRequestId}`, { key: keyA })).json.data.pagination.total).to.equal(0);
  });

  it('keeps the sandbox and other accounts apart', async () => {
    const sandbox = await auditTotal('endpoint=/v1/auth/whoami', sandboxA, 2);
    expect(sandbox.entries.every((e: any) => e.key_id !== null)).to.equal(true);
    const other = await auditTotal('endpoint=/v1/auth/whoami', keyB, 2);
    expect(other.summary.total_requests).to.equal(2);
    const refused = await call(service.url, `/v1/audit?account_id=${accountA}`, { key: keyB });
    expect(refused.status).to.equal(403);
    expect(refused.json.error.code).to.equal('INSUFFICIENT_PERMISSIONS');
    expect((await call(service.url, '/v1/audit?mode=live', { key: sandboxA })).status).to.equal(403);
    // The master key reads any account in either mode.
    const asOperator = await auditTotal(`account_id=${accountA}&mode=test&endpoint=/v1/auth/whoami`, TEST_KEY, 2);
    expect(asOperator.summary.total_requests).to.equal(2);
  });

  it('paginates exactly and filters by date', async () => {
    const all = await auditTotal('endpoint=/v1/auth/whoami', keyA, 5);
    const page = (await call(service.url, '/v1/audit?endpoint=/v1/auth/whoami&limit=2&offset=1', { key: keyA })).json.data;
    expect(page.pagination).to.deep.equal({ total: 5, limit: 2, offset: 1, has_more: true });
    expect(page.entries.map((e: any) => e.request_id)).to.deep.equal(all.entries.slice(1, 3).map((e: any) => e.request_id));
    const last = (await call(service.url, '/v1/audit?endpoint=/v1/auth/whoami&limit=2&offset=4', { key: keyA })).json.data;
    expect(last.pagination.has_more).to.equal(false);
    expect(last.entries).to.have.length(1);

    const third = all.entries[2];
    const since = await call(service.url, `/v1/audit?endpoint=/v1/auth/whoami&start_date=${encodeURIComponent(third.timestamp)}`, { key: keyA });
    // Requests answered in the same millisecond share a timestamp: every one from the third's on counts.
    expect(since.json.data.pagination.total).to.equal(all.entries.filter((e: any) => e.timestamp >= third.timestamp).length);
    const future = await call(service.url, `/v1/audit?start_date=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`, { key: keyA });
    expect(future.json.data).to.deep.include({ entries: [] });
    expect(future.json.data.summary.total_requests).to.equal(0);
  });

  it('exports the same filter as NDJSON and as CSV', async () => {
    await auditTotal('endpoint=/v1/auth/whoami', keyA, 5);
    const ndjson = await fetch(`${service.url}/v1/audit/export?endpoint=/v1/auth/whoami`, { headers: { authorization: `Bearer ${keyA}` } });
    expect(ndjson.status).to.equal(200);
    expect(ndjson.headers.get('content-type')).to.match(/^application\/x-ndjson/);
    const lines = (await ndjson.text()).trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).to.have.length(5);
    expect(lines[4].request_id).to.equal(firstWhoamiId);

    const csv = await fetch(`${service.url}/v1/audit/export?endpoint=/v1/search&status=error&format=csv`, { headers: { authorization: `Bearer ${keyA}` } });
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    const rows = (await csv.text()).trim().split('\r\n');
    expect(rows[0]).to.match(/^request_id,timestamp,endpoint,method,status,/);
    expect(rows.slice(1)).to.have.length(4);
    expect(rows.filter((r) => r.includes('INVALID_MAX_RESULTS'))).to.have.length(3);
  });

  it('reports usage per endpoint, bucket and key from the rollups, equal to the requests sent', async () => {
    await auditTotal('endpoint=/v1/auth/whoami', keyA, 5);
    const res = await call(service.url, '/v1/usage?breakdown=hour&include_details=true', { key: keyA });
    expect(res.status).to.equal(200);
    const usage = res.json.data;
    // Metered requests count against the quota when admitted, a refused one included (the three searches).
    expect(usage.current_period).to.include({ requests_used: sent.invalid, requests_limit: 100_000, usage_percentage: 0 });
    expect(Date.parse(usage.current_period.reset_date)).to.be.above(Date.now());
    expect(usage.current_period.days_until_reset).to.be.within(1, 31);
    expect(usage.endpoint_usage['/v1/auth/whoami']).to.include({ requests: 5, success_rate: 1 });
    expect(usage.endpoint_usage['/v1/search']).to.include({ requests: 4, success_rate: 0 });
    const total = Object.values(usage.endpoint_usage).reduce((sum: number, e: any) => sum + e.requests, 0);
    expect(usage.usage_breakdown.reduce((sum: number, b: any) => sum + b.requests, 0)).to.equal(total);
    expect(usage.usage_breakdown.length).to.be.at.least(28 * 24);
    for (const field of ['avg_response_time', 'p95_response_time', 'p99_response_time', 'success_rate', 'error_rate', 'cache_hit_rate']) {
      expect(usage.performance_metrics[field], field).to.be.a('number').at.least(0);
    }
    expect(usage.performance_metrics.p99_response_time).to.be.at.least(usage.performance_metrics.p95_response_time);
    expect(Object.keys(usage.key_usage)).to.have.length.at.least(2); // the live key, and the revoked one
  });

  it('reports the quota month of an account whose plan has one', async () => {
    const free = await createAccount(service.url, 'free');
    const key = (await createKey(service.url, { account_id: free })).key;
    await call(service.url, '/v1/search', { key, body: { query: 'solar panels', max_results: 500 } });
    const usage = (await call(service.url, '/v1/usage', { key })).json.data;
    expect(usage.current_period).to.include({ requests_used: 1, requests_limit: 1000, usage_percentage: 0.1 });
  });

  it('analyses errors with counts, patterns and a recommendation that names them', async () => {
    await auditTotal('endpoint=/v1/search&status=error', keyA, 4);
    const res = await call(service.url, '/v1/errors?period=day', { key: keyA });
    expect(res.status).to.equal(200);
    const { error_summary: summary, error_breakdown: breakdown, recommendations } = res.json.data;
    expect(summary.total_errors).to.equal(4);
    expect(summary.most_common_error).to.equal('INVALID_MAX_RESULTS');
    expect(summary.error_rate).to.be.within(0.01, 1);
    expect(summary.error_trend).to.be.a('string');
    const invalid = breakdown.find((b: any) => b.error_code === 'INVALID_MAX_RESULTS');
    expect(invalid).to.include({ count: 3, percentage: 75 });
    expect(invalid.affected_endpoints).to.deep.equal(['/v1/search']);
    expect(invalid.peak_times[0]).to.match(/^\d\d:00-\d\d:00 UTC$/);
    expect(invalid.common_patterns).to.include('parameter max_results in 100 % of these errors');
    expect(invalid.common_patterns).to.include('user agent bad-client/1.0 in 100 % of these errors');
    expect(breakdown.find((b: any) => b.error_code === 'INVALID_API_KEY')).to.include({ count: 1 });
    const advice = recommendations.find((r: any) => r.issue.includes('INVALID_MAX_RESULTS'));
    expect(advice.issue).to.include('max_results');
    expect(advice.suggestion).to.include('max_results').and.include('bad-client/1.0');
    expect(advice.priority).to.equal('high');
  });

  it('refuses bad parameters with 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['/v1/audit?limit=0', 'limit'],
      ['/v1/audit?limit=1001', 'limit'],
      ['/v1/audit?status=maybe', 'status'],
      ['/v1/audit?start_date=yesterday', 'start_date'],
      ['/v1/audit?start_date=2026-11-02T00:00:00Z&end_date=2026-11-01T00:00:00Z', 'end_date'],
      ['/v1/audit?colour=blue', 'colour'],
      ['/v1/usage?period=decade', 'period'],
      ['/v1/usage?breakdown=hour&start_date=2025-01-01T00:00:00Z&end_date=2026-01-01T00:00:00Z', 'breakdown'],
      ['/v1/errors?period=year', 'period'],
      ['/v1/audit/export?format=xml', 'format'],
    ];
    for (const [path, parameter] of cases) {
      const res = await call(service.url, path, { key: keyA });
      expect(res.status, path).to.equal(400);
      expect(res.json.success, path).to.equal(false);
      expect(JSON.stringify(res.json.error.details ?? {}), path).to.include(parameter);
    }
  });
});
