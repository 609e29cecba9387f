import { expect } from 'chai';
import { createMetrics } from '../src/metrics/metrics.js';
import { createAccount, createKey, writePlansFile } from './helpers/accounts.js';
import { sampleValue } from './helpers/promql.js';
import { call, startTestService, type TestService } from './helpers/service.js';

describe('GET /metrics', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('exposes request, queue, pool, index and process metrics in Prometheus text format', async () => {
    await call(service.url, '/v1/health');
    await call(service.url, '/v1/nowhere');
    await call(service.url, '/v1/health', { key: 'sev_live_guess' });
    await call(service.url, '/v1/health', { key: null });
    const response = await fetch(`${service.url}/metrics`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/plain/);
    const text = await response.text();
    expect(text).to.match(/^sev_http_requests_total\{method="GET",route="\/v1\/health",status="200",role="all"\} [1-9]/m);
    expect(text).to.match(/^sev_http_requests_total\{method="GET",route="unmatched",status="404",role="all"\} 1/m);
    // Refusals by code, so an operator can tell key guessing from clients without keys.
    expect(text).to.match(/^sev_http_errors_total\{route="\/v1\/health",code="INVALID_API_KEY",role="all"\} 1/m);
    expect(text).to.match(/^sev_http_errors_total\{route="\/v1\/health",code="MISSING_API_KEY",role="all"\} 1/m);
    expect(text).to.match(/^sev_http_errors_total\{route="unmatched",code="NOT_FOUND",role="all"\} 1/m);
    expect(text).to.match(/^sev_http_request_duration_seconds_bucket\{.*route="\/v1\/health"/m);
    expect(text).to.match(/^sev_queue_jobs\{queue="extract",state="waiting",role="all"\} 0/m);
    expect(text).to.match(/^sev_pool_utilization\{role="all"\} /m);
    expect(text).to.match(/^sev_pool_threads\{role="all"\} [1-9]/m);
    expect(text).to.match(/^sev_workers_alive\{role="all"\} 1/m);
    // Search-index gauges are read from MySQL at scrape time; merge counters start at 0 so increase() sees the first one.
    expect(text).to.match(/^# TYPE sev_index_segments gauge$/m);
    expect(text).to.match(/^# TYPE sev_index_postings gauge$/m);
    expect(text).to.match(/^sev_index_merges_total\{outcome="failed",role="all"\} \d+$/m);
    expect(text).to.match(/^sev_index_merge_duration_seconds_count\{role="all"\} \d+$/m);
    expect(text).to.match(/^process_resident_memory_bytes\{role="all"\} /m);
    expect(text).to.match(/^nodejs_eventloop_lag_seconds\{role="all"\} /m);
  });
});

describe('tenant metrics', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ PLANS_FILE: writePlansFile() });
  });
  after(() => service.close());

  const scrape = async () => (await fetch(`${service.url}/metrics`)).text();

  it('counts requests, errors and time by account and key, and the share of the monthly quota used', async () => {
    const account = await createAccount(service.url, 'free'); // 5 requests a month
    const { id, key } = await createKey(service.url, { account_id: account });
    const statuses = [];
    statuses.push((await call(service.url, '/v1/auth/whoami', { key })).status); // not metered
    statuses.push((await call(service.url, '/v1/cache/store', { key, body: { query: 'tea', content: 'green' } })).status);
    statuses.push((await call(service.url, '/v1/cache/query?q=tea', { key })).status);
    statuses.push((await call(service.url, '/v1/cache/query?q=coffee', { key })).status);
    statuses.push((await call(service.url, '/v1/health', { key: null })).status);
    statuses.push((await call(service.url, '/v1/nowhere', { key })).status); // no route: nobody's traffic
    expect(statuses).to.deep.equal([200, 200, 200, 404, 401, 404]);

    let text = await scrape();
    const live = { account, mode: 'live' };
    expect(sampleValue(text, 'sev_tenant_requests_total', { ...live, key: id, outcome: 'success', role: 'all' })).to.equal(3);
    expect(sampleValue(text, 'sev_tenant_requests_total', { ...live, key: id, outcome: 'error' })).to.equal(1);
    expect(sampleValue(text, 'sev_tenant_request_seconds_total', { ...live, key: id })).to.be.greaterThan(0);
    expect(sampleValue(text, 'sev_tenant_request_duration_seconds_count', live)).to.equal(4);
    expect(sampleValue(text, 'sev_tenant_request_duration_seconds_bucket', { ...live, le: '+Inf' })).to.equal(4);
    expect(sampleValue(text, 'sev_tenant_errors_total', { ...live, code: 'NOT_FOUND' })).to.equal(1);
    expect(sampleValue(text, 'sev_tenant_monthly_requests', live)).to.equal(3);
    expect(sampleValue(text, 'sev_tenant_quota_used_ratio', live)).to.be.closeTo(0.6, 1e-9);
    // The master key (creating the account and key), and a request refused before a key was accepted.
    expect(sampleValue(text, 'sev_tenant_requests_total', { account: 'master', key: 'master', mode: 'live', outcome: 'success' })).to.be.at.least(2);
    expect(sampleValue(text, 'sev_tenant_requests_total', { account: 'anonymous', key: 'anonymous', mode: 'none', outcome: 'error' })).to.equal(1);
    expect(sampleValue(text, 'sev_tenant_errors_total', { account: 'anonymous', mode: 'none', code: 'MISSING_API_KEY' })).to.equal(1);
    expect(sampleValue(text, 'sev_tenant_errors_total', { code: 'NOT_FOUND', account: 'anonymous' })).to.equal(undefined);

    // Up to the quota and past it: the refusal is an error of its own code, the ratio 1.
    for (const q of ['tea', 'tea', 'tea']) await call(service.url, `/v1/cache/query?q=${q}`, { key });
    text = await scrape();
    expect(sampleValue(text, 'sev_tenant_errors_total', { ...live, code: 'MONTHLY_LIMIT_EXCEEDED' })).to.equal(1);
    expect(sampleValue(text, 'sev_tenant_monthly_requests', live)).to.equal(5);
    expect(sampleValue(text, 'sev_tenant_quota_used_ratio', live)).to.equal(1);
    expect(sampleValue(text, 'sev_tenant_requests_total', { ...live, key: id, outcome: 'success' })).to.equal(5);
    expect(sampleValue(text, 'sev_tenant_requests_total', { ...live, key: id, outcome: 'error' })).to.equal(2);
  });

  it('counts a sandbox key apart from live ones, and an account without a monthly limit has a count but no ratio', async () => {
    const free = await createAccount(service.url, 'free'); // 3 sandbox requests a month
    const sandbox = await createKey(service.url, { account_id: free, mode: 'test' });
    const pro = await createAccount(service.url, 'pro'); // no monthly limit
    const unlimited = await createKey(service.url, { account_id: pro });
    expect((await call(service.url, '/v1/cache/query?q=tea', { key: sandbox.key })).status).to.equal(404);
    expect((await call(service.url, '/v1/cache/query?q=tea', { key: unlimited.key })).status).to.equal(404);
    const text = await scrape();
    expect(sampleValue(text, 'sev_tenant_requests_total', { account: free, key: sandbox.id, mode: 'test', outcome: 'error' })).to.equal(1);
    expect(sampleValue(text, 'sev_tenant_quota_used_ratio', { account: free, mode: 'test' })).to.be.closeTo(1 / 3, 1e-9);
    expect(sampleValue(text, 'sev_tenant_quota_used_ratio', { account: free, mode: 'live' })).to.equal(undefined);
    expect(sampleValue(text, 'sev_tenant_monthly_requests', { account: pro, mode: 'live' })).to.equal(1);
    expect(sampleValue(text, 'sev_tenant_quota_used_ratio', { account: pro })).to.equal(undefined);
  });

  it('TENANT_METRICS=account leaves the key label empty, off exports no tenant metric', async () => {
    const request = { account: 'acct_a', key: 'key_a', mode: 'live', status: 200, code: undefined, seconds: 0.01 };
    const byAccount = createMetrics('api', {}, { tenants: 'account' });
    byAccount.tenants.request(request);
    byAccount.tenants.request({ ...request, key: 'key_b' });
    const text = await byAccount.registry.metrics();
    expect(text).to.match(/^sev_tenant_requests_total\{account="acct_a",key="",mode="live",outcome="success",role="api"\} 2$/m);
    expect(text).not.to.include('key_a');

    const off = createMetrics('api', {}, { tenants: 'off' });
    off.tenants.request(request);
    off.tenants.quota({ account: 'acct_a', mode: 'live', used: 1, limit: 5, resetsAt: new Date(Date.now() + 60_000) });
    expect(await off.registry.metrics()).not.to.include('sev_tenant_');
  });

  it('drops quota figures once their month is over', async () => {
    const metrics = createMetrics('api');
    metrics.tenants.quota({ account: 'acct_old', mode: 'live', used: 4, limit: 5, resetsAt: new Date(Date.now() - 1) });
    metrics.tenants.quota({ account: 'acct_new', mode: 'live', used: 1, limit: 5, resetsAt: new Date(Date.now() + 60_000) });
    const text = await metrics.registry.metrics();
    expect(sampleValue(text, 'sev_tenant_quota_used_ratio', { account: 'acct_old' })).to.equal(undefined);
    expect(sampleValue(text, 'sev_tenant_quota_used_ratio', { account: 'acct_new' })).to.equal(0.2);
    expect(sampleValue(text, 'sev_tenant_monthly_requests', { account: 'acct_new' })).to.equal(1);
  });
});
