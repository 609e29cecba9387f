import { expect } from 'chai';
import { call, startTestService, TEST_KEY, type TestService } from './helpers/service.js';
import { createAccount, createKey } from './helpers/accounts.js';
import { dropFreshDatabase, freshDatabase } from './helpers/run-scope.js';
import { until } from './helpers/wait.js';

/**
 * /v1/dashboards over real HTTP: the record's life (create, list, read, replace, delete), the
 * 400s that name the field and what it allows, ownership (404 for anyone else), values computed
 * from a traffic mix whose every request is known and checked against GET /v1/usage, and the
 * Grafana export's structure. The suite has a database of its own.
 */
describe('dashboards', function () {
  this.timeout(60_000);
  let service: TestService;
  let accountA: string;
  let keyA: string;
  let sandboxA: string;
  let keyB: string;
  let accountC: string;
  let keyC: string;
  const ALL_TYPES = ['requests', 'requests_per_hour', 'success_rate', 'error_rate', 'response_time', 'cache_hit_rate', 'usage_percentage'];

  const create = (body: unknown, key = keyA) => call(service.url, '/v1/dashboards', { body, key });
  const sample = {
    name: 'Ops',
    metrics: [{ type: 'requests_per_hour', period: '24h' }, { type: 'success_rate' }, { type: 'response_time', percentile: 95, period: '7d' }],
    alerts: [{ metric: 'success_rate', threshold: 0.95, condition: 'less_than' }],
  };

  before(async () => {
    service = await startTestService({ DATABASE_URL: await freshDatabase('dashboards') });
    accountA = await createAccount(service.url, 'pro');
    keyA = (await createKey(service.url, { account_id: accountA })).key;
    sandboxA = (await createKey(service.url, { account_id: accountA, mode: 'test' })).key;
    keyB = (await createKey(service.url, { account_id: await createAccount(service.url, 'pro') })).key;

    // Account C's traffic, every request known: 4 successes and 2 refused searches (metered: they count against the quota).
    accountC = await createAccount(service.url, 'free');
    keyC = (await createKey(service.url, { account_id: accountC })).key;
    for (let i = 0; i < 4; i++) expect((await call(service.url, '/v1/auth/whoami', { key: keyC })).status).to.equal(200);
    for (let i = 0; i < 2; i++) {
      const res = await call(service.url, '/v1/search', { key: keyC, body: { query: 'solar panels', max_results: 500 } });
      expect(res.json.error.code).to.equal('INVALID_MAX_RESULTS');
    }
    // Written to the rollups within a second or two (the same transaction as the raw rows the audit log reads).
    await until(async () => (await call(service.url, `/v1/audit?account_id=${accountC}&limit=1`)).json.data?.pagination.total === 6, 15_000);
  });
  after(async () => {
    await service?.close();
    await dropFreshDatabase('dashboards');
  });

  it('creates, lists, reads, replaces and deletes a dashboard', async () => {
    const created = await create(sample);
    expect(created.status, JSON.stringify(created.json)).to.equal(201);
    const record = created.json.data;
    expect(record.id).to.match(/^dsh_[0-9A-Za-z]{17}$/);
    expect(record).to.deep.include({ name: 'Ops', account_id: accountA, mode: 'live', alerts: sample.alerts });
    // Defaults filled in.
    expect(record.metrics).to.deep.equal([
      { type: 'requests_per_hour', period: '24h' }, { type: 'success_rate', period: '24h' }, { type: 'response_time', period: '7d', percentile: 95 },
    ]);
    expect(record.created_at).to.equal(record.updated_at);
    expect(Date.parse(record.created_at)).to.be.closeTo(Date.now(), 10_000);
    expect(record).to.not.have.property('values');

    const list = await call(service.url, '/v1/dashboards', { key: keyA });
    expect(list.status).to.equal(200);
    expect(list.json.data).to.deep.include({ limit: 100, offset: 0 });
    expect(list.json.data.items.map((d: any) => d.id)).to.include(record.id);
    expect(list.json.data.total).to.equal(list.json.data.items.length);

    const read = await call(service.url, `/v1/dashboards/${record.id}`, { key: keyA });
    expect(read.status).to.equal(200);
    expect(read.json.data).to.deep.include({ id: record.id, name: 'Ops', metrics: record.metrics });
    expect(read.json.data.values.metrics.map((m: any) => [m.type, m.unit])).to.deep.equal([
      ['requests_per_hour', 'requests/hour'], ['success_rate', 'ratio'], ['response_time', 'seconds'],
    ]);
    expect(read.json.data.values.alerts).to.have.length(1);

    const replaced = await call(service.url, `/v1/dashboards/${record.id}`, {
      key: keyA, method: 'PUT', body: { name: 'Errors', metrics: [{ type: 'error_rate', period: '1h' }] },
    });
    expect(replaced.status, JSON.stringify(replaced.json)).to.equal(200);
    expect(replaced.json.data).to.deep.include({ id: record.id, name: 'Errors', metrics: [{ type: 'error_rate', period: '1h' }], alerts: [], created_at: record.created_at });
    expect(Date.parse(replaced.json.data.updated_at)).to.be.at.least(Date.parse(record.created_at));
    expect((await call(service.url, `/v1/dashboards/${record.id}`, { key: keyA })).json.data.name).to.equal('Errors');

    const deleted = await call(service.url, `/v1/dashboards/${record.id}`, { key: keyA, method: 'DELETE' });
    expect(deleted.status).to.equal(200);
    expect(deleted.json.data).to.deep.equal({ id: record.id, deleted: true });
    const gone = await call(service.url, `/v1/dashboards/${record.id}`, { key: keyA });
    expect(gone.status).to.equal(404);
    expect(gone.json.error).to.deep.include({ code: 'NOT_FOUND', details: { resource: 'dashboard', id: record.id } });
    expect((await call(service.url, `/v1/dashboards/${record.id}`, { key: keyA, method: 'DELETE' })).status).to.equal(404);
  });

  it('refuses unknown metric types, bad periods, misplaced percentiles and bad alerts with 400 naming the field and what it allows', async () => {
    const metric = (m: Record<string, unknown>, alerts: unknown[] = []) => ({ name: 'x', metrics: [m], alerts });
    const cases: [unknown, string, string, unknown][] = [
      [metric({ type: 'latency' }), 'metrics[0].type', `must be one of: ${ALL_TYPES.join(', ')}`, 'latency'],
      [metric({ type: 'requests', period: '1 day' }), 'metrics[0].period', 'must be a duration such as 30s, 5m, 24h or 7d', '1 day'],
      [metric({ type: 'requests', period: '30m' }), 'metrics[0].period', "must be a whole number of hours from 1h to 730d (the rollups' retention), such as 24h or 7d", '30m'],
      [metric({ type: 'requests', period: '731d' }), 'metrics[0].period', "must be a whole number of hours from 1h to 730d (the rollups' retention), such as 24h or 7d", '731d'],
      [metric({ type: 'success_rate', percentile: 95 }), 'metrics[0].percentile', 'applies to response_time only', 95],
      [metric({ type: 'response_time', percentile: 100 }), 'metrics[0].percentile', 'must be an integer from 1 to 99', 100],
      [metric({ type: 'usage_percentage', period: '24h' }), 'metrics[0].period', 'does not apply to usage_percentage, which always covers the quota month', '24h'],
      [metric({ type: 'error_rate' }, [{ metric: 'error_rate', threshold: 0.1, condition: 'above' }]), 'alerts[0].condition',
        'must be one of: greater_than, greater_than_or_equal, less_than, less_than_or_equal, equal_to, not_equal_to', 'above'],
      [metric({ type: 'error_rate' }, [{ metric: 'errors', threshold: 0.1, condition: 'greater_than' }]), 'alerts[0].metric', `must be one of: ${ALL_TYPES.join(', ')}`, 'errors'],
      [metric({ type: 'error_rate' }, [{ metric: 'success_rate', threshold: 0.9, condition: 'less_than' }]), 'alerts[0].metric', "must be one of the dashboard's metrics: error_rate", 'success_rate'],
    ];
    for (const [body, parameter, reason, provided] of cases) {
      const res = await create(body);
      expect(res.status, parameter).to.equal(400);
      expect(res.json.error, JSON.stringify(body)).to.deep.include({ code: 'INVALID_PARAMETER', details: { parameter, reason, provided } });
    }
    // The whole deployment has no quota.
    const deployment = await create(metric({ type: 'usage_percentage' }), TEST_KEY);
    expect(deployment.status).to.equal(400);
    expect(deployment.json.error.details).to.deep.include({ parameter: 'metrics[0].type', provided: 'usage_percentage' });
    // A key names no other account; the master key names only accounts that exist.
    expect((await create({ ...metric({ type: 'requests' }), account_id: accountC })).json.error.code).to.equal('INSUFFICIENT_PERMISSIONS');
    const missing = await create({ ...metric({ type: 'requests' }), account_id: 'acct_nobody' }, TEST_KEY);
    expect(missing.status).to.equal(404);
    expect(missing.json.error.details).to.deep.include({ resource: 'account', id: 'acct_nobody' });
  });

  it("answers 404 to another account's key, the sandbox key and the master key for a key's dashboard", async () => {
    const id = (await create(sample)).json.data.id;
    for (const key of [keyB, sandboxA, TEST_KEY]) {
      for (const [method, path, body] of [['GET', ''], ['GET', '/grafana'], ['PUT', '', sample], ['DELETE', '']] as const) {
        const res = await call(service.url, `/v1/dashboards/${id}${path}`, { key, method, ...(body ? { body } : {}) });
        expect(res.status, `${method} ${path}`).to.equal(404);
        expect(res.json.error.code).to.equal('NOT_FOUND');
      }
      expect((await call(service.url, '/v1/dashboards', { key })).json.data.items.map((d: any) => d.id)).to.not.include(id);
    }
    // The sandbox key's dashboards are its own, over sandbox figures.
    const sandbox = await create(sample, sandboxA);
    expect(sandbox.json.data).to.deep.include({ account_id: accountA, mode: 'test' });
    expect((await call(service.url, `/v1/dashboards/${sandbox.json.data.id}`, { key: keyA })).status).to.equal(404);
    expect((await call(service.url, `/v1/dashboards/${id}`, { key: keyA })).status).to.equal(200);
  });

  it('computes each current value and series from the rollups, the same figures GET /v1/usage reports for the same hours', async () => {
    const body = {
      name: 'Account C',
      account_id: accountC,
      metrics: [
        { type: 'requests' }, { type: 'requests_per_hour' }, { type: 'success_rate' }, { type: 'error_rate' }, { type: 'response_time' },
        { type: 'response_time', percentile: 95 }, { type: 'cache_hit_rate' }, { type: 'usage_percentage' }, { type: 'requests', period: '30d' },
      ],
      alerts: [
        { metric: 'error_rate', threshold: 0.2, condition: 'greater_than' },
        { metric: 'success_rate', threshold: 0.5, condition: 'less_than' },
        { metric: 'usage_percentage', threshold: 80, condition: 'greater_than_or_equal' },
      ],
    };
    const created = await create(body, TEST_KEY);
    expect(created.status, JSON.stringify(created.json)).to.equal(201);
    expect(created.json.data).to.deep.include({ account_id: accountC, mode: 'live' });
    const read = await call(service.url, `/v1/dashboards/${created.json.data.id}`);
    expect(read.status).to.equal(200);
    const values = read.json.data.values;
    const [requests, perHour, success, errors, mean, p95, cache, quota, month] = values.metrics;

    expect(requests).to.deep.include({ type: 'requests', period: '24h', unit: 'requests', current: 6 });
    expect(Date.parse(requests.end) - Date.parse(requests.start)).to.equal(24 * 3_600_000);
    expect(Date.parse(requests.end) % 3_600_000).to.equal(0);
    expect(Date.parse(requests.end)).to.be.within(Date.now(), Date.now() + 3_600_000);
    expect(requests.series).to.have.length(24);
    expect(requests.series[0].timestamp).to.equal(requests.start);
    expect(requests.series.reduce((sum: number, p: any) => sum + p.value, 0)).to.equal(6);
    expect(perHour).to.deep.include({ unit: 'requests/hour', current: 0.25 });
    expect(perHour.series.reduce((sum: number, p: any) => sum + p.value, 0)).to.equal(6);
    expect(success).to.deep.include({ unit: 'ratio', current: 0.6667 });
    expect(errors).to.deep.include({ unit: 'ratio', current: 0.3333 });
    expect(cache).to.deep.include({ unit: 'ratio', current: 0 });
    // Hours without requests have no rate.
    expect(success.series.filter((p: any) => p.value === null)).to.have.length.at.least(22);
    expect(mean).to.deep.include({ unit: 'seconds' });
    expect(mean.current).to.be.a('number').within(0, 5);
    expect(p95).to.deep.include({ percentile: 95, unit: 'seconds' });
    expect(p95.current).to.be.a('number').at.least(0);

    // Longer than a week: a point per UTC day, the first and last partial.
    expect(month).to.deep.include({ period: '30d', current: 6 });
    expect(month.series.length).to.be.within(30, 31);
    expect(month.series.every((p: any) => p.timestamp.endsWith('T00:00:00.000Z'))).to.equal(true);
    expect(month.series.reduce((sum: number, p: any) => sum + p.value, 0)).to.equal(6);

    const usage = (await call(service.url, `/v1/usage?account_id=${accountC}&breakdown=hour&start_date=${requests.start}&end_date=${requests.end}`)).json.data;
    expect(usage.usage_breakdown.reduce((sum: number, b: any) => sum + b.requests, 0)).to.equal(requests.current);
    expect(usage.usage_breakdown.map((b: any) => b.requests)).to.deep.equal(requests.series.map((p: any) => p.value));
    expect(usage.performance_metrics).to.deep.include({
      success_rate: success.current, error_rate: errors.current, cache_hit_rate: cache.current,
      avg_response_time: mean.current, p95_response_time: p95.current,
    });

    // The quota month, as current_period reports it: 2 metered requests of the free plan's 1000.
    expect(quota).to.deep.include({ type: 'usage_percentage', unit: 'percent', current: 0.2 });
    expect(quota).to.not.have.property('period');
    expect(quota.current).to.equal(usage.current_period.usage_percentage);
    expect(quota.end).to.equal(usage.current_period.reset_date);
    expect(quota.series.at(-1).timestamp).to.equal(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
    expect(quota.series.at(-1).value).to.be.at.most(0.2);

    expect(values.alerts).to.deep.equal([
      { metric: 'error_rate', condition: 'greater_than', threshold: 0.2, value: 0.3333, triggered: true },
      { metric: 'success_rate', condition: 'less_than', threshold: 0.5, value: 0.6667, triggered: false },
      { metric: 'usage_percentage', condition: 'greater_than_or_equal', threshold: 80, value: 0.2, triggered: false },
    ]);
    expect(Date.parse(values.computed_at)).to.be.closeTo(Date.now(), 10_000);

    // The key of the account sees the same figures on a dashboard of its own (its own requests since are counted too).
    const own = await create({ name: 'mine', metrics: [{ type: 'error_rate' }] }, keyC);
    const mine = (await call(service.url, `/v1/dashboards/${own.json.data.id}`, { key: keyC })).json.data.values.metrics[0];
    expect(mine.current).to.be.within(0.01, 0.3333);
  });

  it('exports an importable Grafana dashboard whose panels query the metrics of its scope, alerts as thresholds', async () => {
    const body = {
      name: 'Account C board',
      account_id: accountC,
      metrics: [{ type: 'error_rate' }, { type: 'success_rate', period: '7d' }, { type: 'usage_percentage' }, { type: 'response_time', percentile: 99 }, { type: 'requests' }],
      alerts: [{ metric: 'error_rate', threshold: 0.05, condition: 'greater_than' }, { metric: 'success_rate', threshold: 0.9, condition: 'less_than' }],
    };
    const id = (await create(body, TEST_KEY)).json.data.id;
    const res = await fetch(`${service.url}/v1/dashboards/${id}/grafana`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="sev-dashboard-${id}.json"`);
    const grafana = await res.json() as any;
    expect(grafana).to.not.have.property('success');
    expect(grafana).to.deep.include({ uid: `sev-${id}`, title: 'Account C board', schemaVersion: 39, id: null, timezone: 'utc' });
    expect(grafana.time).to.deep.equal({ from: 'now-7d', to: 'now' });
    expect(grafana.templating.list).to.deep.equal([grafana.templating.list[0]]);
    expect(grafana.templating.list[0]).to.include({ type: 'datasource', name: 'datasource', query: 'prometheus' });
    expect(grafana.panels.map((p: any) => [p.id, p.type, p.title, p.timeFrom])).to.deep.equal([
      [1, 'timeseries', 'Error rate (24h)', '24h'],
      [2, 'timeseries', 'Success rate (7d)', '7d'],
      [3, 'gauge', 'Monthly quota used', undefined],
      [4, 'timeseries', 'Response time p99 (24h)', '24h'],
      [5, 'stat', 'Requests (24h)', '24h'],
    ]);
    expect(grafana.panels.map((p: any) => p.gridPos)).to.deep.equal([
      { h: 8, w: 12, x: 0, y: 0 }, { h: 8, w: 12, x: 12, y: 0 }, { h: 8, w: 12, x: 0, y: 8 }, { h: 8, w: 12, x: 12, y: 8 }, { h: 8, w: 12, x: 0, y: 16 },
    ]);
    for (const panel of grafana.panels) {
      expect(panel.datasource).to.deep.equal({ type: 'prometheus', uid: '${datasource}' });
      expect(panel.targets).to.have.length(1);
      expect(panel.targets[0]).to.include({ refId: 'A', datasource: panel.targets[0].datasource });
      expect(panel.targets[0].expr).to.include(`account="${accountC}", mode="live"`);
    }
    const expr = (i: number) => grafana.panels[i].targets[0].expr as string;
    expect(expr(0)).to.equal(`(sum(rate(sev_tenant_requests_total{account="${accountC}", mode="live", outcome="error"}[$__rate_interval])) or vector(0)) / sum(rate(sev_tenant_requests_total{account="${accountC}", mode="live"}[$__rate_interval]))`);
    expect(expr(2)).to.equal(`max(sev_tenant_quota_used_ratio{account="${accountC}", mode="live"}) * 100`);
    expect(expr(3)).to.equal(`histogram_quantile(0.99, sum by (le) (rate(sev_tenant_request_duration_seconds_bucket{account="${accountC}", mode="live"}[$__rate_interval])))`);
    expect(expr(4)).to.equal(`sum(increase(sev_tenant_requests_total{account="${accountC}", mode="live"}[$__range]))`);
    const steps = (i: number) => grafana.panels[i].fieldConfig.defaults.thresholds.steps;
    expect(steps(0)).to.deep.equal([{ color: 'green', value: null }, { color: 'red', value: 0.05 }]);
    expect(steps(1)).to.deep.equal([{ color: 'red', value: null }, { color: 'green', value: 0.9 }]);
    expect(steps(2)).to.deep.equal([{ color: 'green', value: null }]);
    expect(grafana.panels[0].fieldConfig.defaults).to.include({ unit: 'percentunit', min: 0, max: 1 });
    expect(grafana.panels[2].fieldConfig.defaults).to.include({ unit: 'percent', min: 0, max: 100 });

    // The master key's deployment-wide dashboard reads the service-wide HTTP metrics; one in a mode, every account's tenant metrics in it.
    const deployment = (await create({ name: 'All', metrics: [{ type: 'requests_per_hour' }, { type: 'response_time' }] }, TEST_KEY)).json.data;
    expect(deployment).to.deep.include({ account_id: null, mode: null });
    const all = (await call(service.url, `/v1/dashboards/${deployment.id}/grafana`)).json;
    expect(all.panels[0].targets[0].expr).to.equal('sum(rate(sev_http_requests_total{route!~"/livez|/readyz|/metrics"}[$__rate_interval])) * 3600');
    expect(all.panels[1].targets[0].expr).to.equal('sum(rate(sev_http_request_duration_seconds_sum{route!~"/livez|/readyz|/metrics"}[$__rate_interval])) / sum(rate(sev_http_request_duration_seconds_count{route!~"/livez|/readyz|/metrics"}[$__rate_interval]))');
    const sandboxes = (await create({ name: 'Sandboxes', mode: 'test', metrics: [{ type: 'requests_per_hour' }] }, TEST_KEY)).json.data;
    expect(sandboxes).to.deep.include({ account_id: null, mode: 'test' });
    expect((await call(service.url, `/v1/dashboards/${sandboxes.id}/grafana`)).json.panels[0].targets[0].expr)
      .to.equal('sum(rate(sev_tenant_requests_total{mode="test"}[$__rate_interval])) * 3600');
  });

  it('limits an owner to 100 dashboards', async () => {
    const key = (await createKey(service.url, { account_id: await createAccount(service.url, 'pro') })).key;
    const made = await Promise.all(Array.from({ length: 100 }, (_, i) => create({ name: `d${i}`, metrics: [{ type: 'requests' }] }, key)));
    expect(made.map((r) => r.status)).to.deep.equal(new Array(100).fill(201));
    const refused = await create({ name: 'one more', metrics: [{ type: 'requests' }] }, key);
    expect(refused.status).to.equal(422);
    expect(refused.json.error).to.deep.include({ code: 'RESOURCE_LIMIT_REACHED', details: { resource: 'dashboards', limit: 100, count: 100 } });
    const page = (await call(service.url, '/v1/dashboards?limit=30&offset=90', { key })).json.data;
    expect(page).to.deep.include({ total: 100, limit: 30, offset: 90 });
    expect(page.items).to.have.length(10);
    // Another owner is not affected.
    expect((await create({ name: 'fine', metrics: [{ type: 'requests' }] }, keyB)).status).to.equal(201);
  });
});
