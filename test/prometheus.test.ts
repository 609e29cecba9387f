import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';
import { createAccount, createKey, writePlansFile } from './helpers/accounts.js';
import { freePort } from './helpers/free-port.js';
import { dashboardQueries, exportedMetrics, selectors, type Dashboard, type Exported, type Expression } from './helpers/promql.js';
import { call, startTestService, type TestService } from './helpers/service.js';
import { eventually } from './helpers/wait.js';

/**
 * The dashboards and alert rules against the real thing: a Prometheus of the test's own scrapes
 * the service every second, then every panel query, variable query and rule expression is
 * evaluated by it (a syntax error fails with the panel or rule named), and every metric and
 * label a selector names must be one the service's /metrics exports. promtool checks the
 * shipped rule and configuration files. Only 127.0.0.1 is contacted.
 */

const GRAFANA = path.join(PROJECT_ROOT, 'grafana');
const DASHBOARDS = path.join(GRAFANA, 'dashboards');
const ALERTS = path.join(GRAFANA, 'prometheus', 'alerts.yml');
const CONFIG = path.join(GRAFANA, 'prometheus', 'prometheus.yml');

/** Series Prometheus writes itself, not the service: their names may be selected too. */
const PROMETHEUS_SERIES = new Set([
  'up', 'scrape_duration_seconds', 'scrape_samples_scraped', 'scrape_samples_post_metric_relabeling', 'scrape_series_added',
  'ALERTS', 'ALERTS_FOR_STATE',
]);
/** Labels Prometheus adds to every scraped series. */
const TARGET_LABELS = ['job', 'instance'];

function requireTool(name: string): void {
  const run = spawnSync(name, ['--version'], { stdio: 'ignore' });
  if (run.error || run.status !== 0) {
    throw new Error(`${name} is not installed or does not run (${run.error?.message ?? `exit ${run.status}`}): this test runs a real Prometheus. `
      + 'Install the Debian package: apt-get install --no-install-recommends prometheus (bash .ci/run does).');
  }
}

interface PromResponse<T> {
  status: 'success' | 'error';
  data: T;
  error?: string;
  errorType?: string;
}

interface Rule {
  name: string;
  query: string;
  type: 'alerting' | 'recording';
  health: string;
  lastError?: string;
  lastEvaluation: string;
}

describe('Prometheus: the dashboards and alert rules evaluated by a real Prometheus scraping the service', function () {
  this.timeout(60_000);
  let service: TestService;
  let prometheus: ChildProcess | undefined;
  let prometheusLog = '';
  let dir: string;
  let base: string;
  let account: string;
  let exported: Exported;

  async function api<T>(endpoint: string, form?: Record<string, string>): Promise<PromResponse<T>> {
    const response = await fetch(`${base}${endpoint}`, form
      ? { method: 'POST', body: new URLSearchParams(form), signal: AbortSignal.timeout(10_000) }
      : { signal: AbortSignal.timeout(10_000) });
    return await response.json() as PromResponse<T>;
  }

  const query = (expr: string) => api<{ resultType: string; result: unknown[] }>('/api/v1/query', { query: expr });

  before(async () => {
    requireTool('prometheus');
    requireTool('promtool');
    service = await startTestService({ PLANS_FILE: writePlansFile() });

    // A little traffic of every kind the dashboards break down: a live key of a "free" account
    // (5 requests a month) past its quota, a sandbox key, the master key, and refused keys; once
    // before Prometheus scrapes, so every series exists, and again after, so rates are not 0.
    account = await createAccount(service.url, 'free');
    const live = (await createKey(service.url, { account_id: account })).key as string;
    const sandbox = (await createKey(service.url, { account_id: account, mode: 'test' })).key as string;
    const send = async (requests: [string, Parameters<typeof call>[2]][]) => {
      const statuses = [];
      for (const [route, options] of requests) statuses.push((await call(service.url, route, options)).status);
      return statuses;
    };
    const first = await send([
      ['/v1/auth/whoami', { key: live }],
      ['/v1/cache/store', { key: live, body: { query: 'tea', content: 'green' } }],
      ['/v1/cache/query?q=tea', { key: live }],
      ['/v1/cache/query?q=coffee', { key: live }],
      ['/v1/cache/query', { key: live }],
      ['/v1/cache/query?q=tea', { key: live }],
      ['/v1/cache/query?q=tea', { key: live }],
      ['/v1/cache/query?q=tea', { key: sandbox }],
      ['/v1/health', {}],
      ['/v1/health', { key: null }],
      ['/v1/health', { key: 'sev_live_not_a_key_at_all_0123456789' }],
      ['/v1/nowhere', {}],
    ]);
    expect(first).to.deep.equal([200, 200, 200, 404, 400, 200, 429, 404, 200, 401, 401, 404]);
    const again = async () => expect(await send([
      ['/v1/auth/whoami', { key: live }],
      ['/v1/cache/query?q=tea', { key: live }],
      ['/v1/cache/query?q=tea', { key: sandbox }],
      ['/v1/health', {}],
      ['/v1/health', { key: null }],
    ])).to.deep.equal([200, 429, 404, 200, 401]);

    dir = mkdtempSync(path.join(os.tmpdir(), 'sev-prometheus-'));
    const config = {
      global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
      rule_files: [ALERTS],
      scrape_configs: [{ job_name: 'sev-api', metrics_path: '/metrics', static_configs: [{ targets: [new URL(service.url).host] }] }],
    };
    // JSON is YAML.
    writeFileSync(path.join(dir, 'prometheus.yml'), JSON.stringify(config, null, 2));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    prometheus = spawn('prometheus', [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [prometheus.stdout!, prometheus.stderr!]) stream.on('data', (chunk: Buffer) => { prometheusLog += chunk.toString(); });
    const exited = new Promise<never>((_, reject) => prometheus!.once('exit', (code) => reject(new Error(`prometheus exited (${code}):\n${prometheusLog}`))));
    exited.catch(() => undefined);

    // Discovery hands the target over within about 5 s; then three successful scrapes, so rate() has points.
    const scraped = eventually(async () => {
      try {
        const targets = await api<{ activeTargets: { labels: { job: string }; health: string }[] }>('/api/v1/targets');
        if (!targets.data.activeTargets.some((t) => t.labels.job === 'sev-api' && t.health === 'up')) return undefined;
        const samples = await query('sum_over_time(up{job="sev-api"}[1m])');
        const value = Number((samples.data.result[0] as { value?: [number, string] } | undefined)?.value?.[1] ?? 0);
        return value >= 3 ? true : undefined;
      } catch {
        return undefined;
      }
    }, 30_000).catch((error: Error) => { throw new Error(`Prometheus did not scrape the service three times: ${error.message}\n${prometheusLog}`); });
    await Promise.race([scraped, exited]);

    await again();
    const accounts = `${account}|master|anonymous`;
    await Promise.race([exited, eventually(async () => {
      const rising = await query(`sum by (account) (increase(sev_tenant_requests_total{account=~"${accounts}"}[1m])) > 0`);
      return rising.data.result.length === 3 ? true : undefined;
    }, 15_000).catch((error: Error) => { throw new Error(`Prometheus did not see the second round of requests: ${error.message}`); })]);
    exported = exportedMetrics(await (await fetch(`${service.url}/metrics`)).text());
  });

  after(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exit = new Promise((resolve) => prometheus!.once('exit', resolve));
      prometheus.kill('SIGTERM');
      const timer = setTimeout(() => prometheus!.kill('SIGKILL'), 5000);
      await exit;
      clearTimeout(timer);
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    await service?.close();
  });

  /** What is wrong with an expression: Prometheus' error, or a selector naming a metric or label the service does not export. */
  async function problems({ where, expr }: Expression, knownNames: ReadonlySet<string>): Promise<string[]> {
    const found: string[] = [];
    const answer = await query(expr);
    if (answer.status !== 'success') found.push(`${where}: Prometheus refused it (${answer.errorType}: ${answer.error})\n    ${expr}`);
    for (const { metric, labels } of selectors(expr)) {
      if (metric === undefined) {
        found.push(`${where}: a selector without a metric name\n    ${expr}`);
      } else if (PROMETHEUS_SERIES.has(metric) || knownNames.has(metric)) {
        // Series of Prometheus' own, and recording rules: their labels are not the service's.
      } else if (!exported.names.has(metric)) {
        found.push(`${where}: names ${metric}, which the service's /metrics does not export\n    ${expr}`);
      } else if (exported.sampled.has(metric)) {
        const known = exported.names.get(metric)!;
        for (const label of labels) {
          if (!known.has(label) && !TARGET_LABELS.includes(label)) found.push(`${where}: matches ${metric} on label "${label}", which its samples do not carry (${[...known].join(', ')})\n    ${expr}`);
        }
      }
    }
    return found;
  }

  function dashboards(): Dashboard[] {
    const files = readdirSync(DASHBOARDS).filter((file) => file.endsWith('.json')).sort();
    expect(files).to.include.members(['sev-overview.json', 'sev-tenants.json']);
    return files.map((file) => JSON.parse(readFileSync(path.join(DASHBOARDS, file), 'utf8')) as Dashboard);
  }

  async function loadedRules(): Promise<Rule[]> {
    const answer = await api<{ groups: { rules: Rule[] }[] }>('/api/v1/rules');
    return answer.data.groups.flatMap((group) => group.rules);
  }

  it('promtool accepts the shipped alert rules and the Prometheus configuration docker-compose.yml mounts', () => {
    for (const args of [['check', 'rules', ALERTS], ['check', 'config', CONFIG]]) {
      const run = spawnSync('promtool', args, { encoding: 'utf8' });
      expect(run.status, `promtool ${args.join(' ')}:\n${run.stdout}${run.stderr}`).to.equal(0);
    }
    // The configuration loads alerts.yml from beside it, where docker-compose.yml mounts it.
    expect(readFileSync(CONFIG, 'utf8')).to.match(/^rule_files:\n\s+- alerts\.yml$/m);
    expect(readFileSync(path.join(PROJECT_ROOT, 'docker-compose.yml'), 'utf8'))
      .to.include('./grafana/prometheus/alerts.yml:/etc/prometheus/alerts.yml')
      .and.include('./grafana/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml');
  });

  it('evaluates every panel and variable query of every dashboard, each naming only metrics and labels the service exports', async () => {
    const rules = await loadedRules();
    const recorded = new Set(rules.filter((rule) => rule.type === 'recording').map((rule) => rule.name));
    const failures: string[] = [];
    let checked = 0;
    for (const dashboard of dashboards()) {
      const { expressions, labelValues } = dashboardQueries(dashboard);
      expect(expressions.length, dashboard.title).to.be.greaterThan(0);
      for (const expression of expressions) {
        failures.push(...await problems(expression, recorded));
        checked++;
      }
      for (const { where, selector, label } of labelValues) {
        failures.push(...await problems({ where, expr: selector }, recorded));
        const answer = await api<string[]>(`/api/v1/label/${label}/values?${new URLSearchParams({ 'match[]': selector })}`);
        if (answer.status !== 'success') failures.push(`${where}: Prometheus refused label_values(${selector}, ${label}): ${answer.error}`);
        else if (answer.data.length === 0) failures.push(`${where}: label_values(${selector}, ${label}) has no values`);
        checked++;
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
    expect(checked).to.be.greaterThan(60);
  });

  it('loads every rule of alerts.yml, evaluates each without error, and each names only metrics and labels the service exports', async () => {
    const declared = readFileSync(ALERTS, 'utf8').match(/^\s*-\s*(alert|record):/gm)?.length ?? 0;
    // Every rule evaluated at least once (every second here).
    const rules = await eventually(async () => {
      const loaded = await loadedRules();
      return loaded.length === declared && loaded.every((rule) => !rule.lastEvaluation.startsWith('0001-')) ? loaded : undefined;
    }, 10_000);
    const recorded = new Set(rules.filter((rule) => rule.type === 'recording').map((rule) => rule.name));
    const failures: string[] = [];
    for (const rule of rules) {
      if (rule.health === 'err') failures.push(`rule "${rule.name}": evaluation failed: ${rule.lastError}`);
      failures.push(...await problems({ where: `rule "${rule.name}"`, expr: rule.query }, recorded));
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
    expect(rules.length).to.be.greaterThan(10);
  });

  it('fills every panel of the tenant dashboard from the traffic sent, with the account in its Account variable', async () => {
    const tenants = dashboards().find((dashboard) => dashboard.title === 'SEV tenants')!;
    const { expressions, labelValues } = dashboardQueries(tenants);
    const empty: string[] = [];
    for (const { where, expr } of expressions) {
      const answer = await query(expr);
      if (answer.status !== 'success' || answer.data.result.length === 0) empty.push(`${where}: no data\n    ${expr}`);
    }
    expect(empty, empty.join('\n')).to.deep.equal([]);
    const accounts = labelValues.find((variable) => variable.label === 'account')!;
    const values = await api<string[]>(`/api/v1/label/account/values?${new URLSearchParams({ 'match[]': accounts.selector })}`);
    expect(values.data).to.include.members([account, 'master', 'anonymous']);
  });

  it('evaluates every panel of dashboards made through the API and exported for Grafana, every metric type, each with data from the traffic sent', async () => {
    const rules = await loadedRules();
    const recorded = new Set(rules.filter((rule) => rule.type === 'recording').map((rule) => rule.name));
    const every = [
      { type: 'requests' }, { type: 'requests_per_hour', period: '7d' }, { type: 'success_rate' }, { type: 'error_rate' },
      { type: 'response_time' }, { type: 'response_time', percentile: 95 }, { type: 'cache_hit_rate', period: '30d' },
    ];
    // An account's (sev_tenant_* of its account and mode), every account's in one mode, and the whole deployment's (sev_http_*).
    const bodies = [
      { name: 'Free account', account_id: account, metrics: [...every, { type: 'usage_percentage' }], alerts: [{ metric: 'error_rate', threshold: 0.1, condition: 'greater_than' }] },
      { name: 'Sandboxes', mode: 'test', metrics: every },
      { name: 'Deployment', metrics: every },
    ];
    const failures: string[] = [];
    const empty: string[] = [];
    for (const body of bodies) {
      const created = await call(service.url, '/v1/dashboards', { body });
      expect(created.status, JSON.stringify(created.json)).to.equal(201);
      const grafana = await call(service.url, `/v1/dashboards/${created.json.data.id}/grafana`);
      expect(grafana.status).to.equal(200);
      const { expressions, labelValues } = dashboardQueries(grafana.json as Dashboard);
      expect(expressions, body.name).to.have.length(body.metrics.length);
      expect(labelValues).to.deep.equal([]);
      for (const expression of expressions) {
        failures.push(...await problems(expression, recorded));
        const answer = await query(expression.expr);
        if (answer.status === 'success' && answer.data.result.length === 0) empty.push(`${expression.where}: no data\n    ${expression.expr}`);
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
    expect(empty, empty.join('\n')).to.deep.equal([]);
  });
});

describe('PromQL selectors, as the Prometheus test reads them', () => {
  it('finds metric and label names, skipping functions, aggregations, label lists, strings, ranges and numbers', () => {
    expect(selectors('histogram_quantile(0.95, sum by (le, route) (rate(sev_http_request_duration_seconds_bucket{role=~"$role", route!~"/livez|/readyz"}[5m])))'))
      .to.deep.equal([{ metric: 'sev_http_request_duration_seconds_bucket', labels: ['role', 'route'] }]);
    expect(selectors('sum(rate(a_total{x="}{"}[1m] offset 5m)) without (instance) / on(job) group_left(mode) b > bool 1e3 and c or vector(0)'))
      .to.deep.equal([{ metric: 'a_total', labels: ['x'] }, { metric: 'b', labels: [] }, { metric: 'c', labels: [] }]);
    expect(selectors('topk(5, sum by (code) (increase({__name__="sev_tenant_errors_total", code!=""}[1h])))'))
      .to.deep.equal([{ metric: 'sev_tenant_errors_total', labels: ['code'] }]);
    expect(selectors('{job="x"}')).to.deep.equal([{ metric: undefined, labels: ['job'] }]);
    expect(selectors('label_replace(up, "a", "$1", "instance", "(.*):.*") # a comment naming not_a_metric'))
      .to.deep.equal([{ metric: 'up', labels: [] }]);
  });

  it('reads the names a /metrics page exports, a histogram with its _bucket, _sum and _count', () => {
    const { names, sampled } = exportedMetrics([
      '# HELP h_seconds A histogram', '# TYPE h_seconds histogram', 'h_seconds_bucket{le="1",mode="live"} 1', 'h_seconds_sum{mode="live"} 0.5',
      '# TYPE c_total counter', '# TYPE g gauge', 'g 3',
    ].join('\n'));
    expect([...names.keys()].sort()).to.deep.equal(['c_total', 'g', 'h_seconds_bucket', 'h_seconds_count', 'h_seconds_sum']);
    expect([...names.get('h_seconds_bucket')!].sort()).to.deep.equal(['le', 'mode']);
    expect([...sampled].sort()).to.deep.equal(['g', 'h_seconds_bucket', 'h_seconds_sum']);
  });
});
