import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';
import { expectSchema } from './helpers/response-schema.js';
import { freshDatabase } from './helpers/run-scope.js';
import { call, startTestService, testEnv, type TestService } from './helpers/service.js';
import { eventually, until } from './helpers/wait.js';

const TEA = {
  url: 'https://notes.example/tea', title: 'Brewing green tea', language: 'en',
  content: 'Green tea is brewed with water at 70 to 80 degrees Celsius for two to three minutes. Boiling water makes it bitter.',
};

const isTimestamp = (value: unknown) => typeof value === 'string' && !Number.isNaN(Date.parse(value));

describe('GET /v1/health', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    // A database of its own: the search and validation below read what its index holds.
    service = await startTestService({ DATABASE_URL: await freshDatabase('sev_health_test') });
    const indexed = await call(service.url, '/v1/index/documents', { body: { documents: [TEA] } });
    expect(indexed.status, JSON.stringify(indexed.json)).to.equal(200);
  });
  after(() => service?.close());

  it('reports every component from real checks', async () => {
    const res = await call(service.url, '/v1/health');
    expect(res.status).to.equal(200);
    const data = res.json.data;
    expect(data.status).to.equal('healthy');
    expect(data.version).to.match(/^v\d+\.\d+\.\d+$/);
    expect(Date.parse(data.timestamp)).to.be.closeTo(Date.now(), 5000);
    expect(data.uptime).to.be.within(0, 100);
    for (const name of ['database', 'cache_layer', 'job_queue', 'workers', 'cpu_pool', 'search_engine', 'validation_service', 'extraction_service']) {
      expect(data.services[name].status, name).to.equal('healthy');
      expect(Date.parse(data.services[name].last_check), name).to.not.be.NaN;
    }
    expect(data.services.database.response_time).to.be.a('number').and.lessThan(2);
    expect(data.services.database.connection_pool).to.match(/^\d+\/10$/);
    expect(data.services.cache_layer.response_time).to.be.a('number');
    expect(data.services.job_queue.depth.extract).to.include.keys('waiting', 'active', 'failed');
    expect(data.services.workers.alive).to.equal(1);
    expect(data.services.cpu_pool.threads).to.be.at.least(1);
    // Chromium is installed here (.ci/run) and nothing has been rendered: no browser runs yet.
    expect(data.services.renderer).to.deep.include({ status: 'healthy', available: true, workers: 1, workers_with_browser: 1, running: 0 });
    expect(data.regions.local).to.include.keys('status', 'latency', 'load');
    expect(data.recent_incidents).to.be.an('array');
    expectSchema('health.response', data);
  });

  it('measures every field of 2.8: response times and hit rates of the last minutes, the pool, regions', async () => {
    for (let i = 0; i < 2; i++) {
      // The second search is answered from the cache.
      const searched = await call(service.url, '/v1/search', { body: { query: 'green tea water temperature' } });
      expect(searched.status, JSON.stringify(searched.json)).to.equal(200);
    }
    const validated = await call(service.url, '/v1/validate', { body: { claim: 'Green tea is brewed with water at 70 to 80 degrees Celsius.' } });
    expect(validated.status, JSON.stringify(validated.json)).to.equal(200);

    const data = (await call(service.url, '/v1/health')).json.data;
    expectSchema('health.response', data);
    expect(data.status).to.be.a('string');
    expect(isTimestamp(data.timestamp)).to.equal(true);
    expect(data.version).to.be.a('string');
    expect(data.uptime).to.be.a('number').within(0, 100);
    expect(data.recent_incidents).to.be.an('array');

    const { search_engine: search, validation_service: validation, cache_layer: cache, database } = data.services;
    for (const component of [search, validation, cache, database]) {
      expect(component.status).to.be.a('string');
      expect(isTimestamp(component.last_check)).to.equal(true);
    }
    expect(search.requests).to.equal(2);
    expect(search.response_time).to.be.a('number').above(0);
    expect(search.hit_rate).to.equal(0.5);
    expect(search.error_rate).to.equal(0);
    expect(validation.requests).to.equal(1);
    expect(validation.response_time).to.be.a('number').above(0);
    expect(validation.response_time).to.be.at.least(0.001);
    expect(cache.hit_rate).to.equal(0.5);
    expect(cache.lookups).to.equal(2);
    expect(database.connection_pool).to.be.a('string').and.match(/^\d+\/10$/);
    expect(data.services.extraction_service.requests).to.equal(0);
    expect(data.services.extraction_service.response_time).to.equal(null);

    expect(Object.keys(data.regions)).to.deep.equal(['local']);
    const region = data.regions.local;
    expect(region.status).to.equal('healthy');
    expect(region.latency).to.be.a('number').above(0).and.below(1);
    expect(region.load).to.be.a('number').within(0, 1);
    expect(region.processes).to.equal(1);
  });
});

describe('regions', function () {
  this.timeout(60_000);
  let east: TestService;
  let west: TestService;
  const prefix = testEnv().QUEUE_PREFIX!;

  before(async () => {
    east = await startTestService({ QUEUE_PREFIX: prefix, REGION: 'us-east' });
    west = await startTestService({ QUEUE_PREFIX: prefix, REGION: 'europe' }, 'api');
  });
  after(async () => {
    await Promise.all([east?.close(), west?.close()]);
  });

  it('reports the region of every process sharing the Redis, each with its measured latency and load', async () => {
    for (const service of [east, west]) {
      const regions = await eventually(async () => {
        const data = (await call(service.url, '/v1/health')).json.data;
        return Object.keys(data.regions).length === 2 ? data.regions : undefined;
      }, 5000);
      expect(Object.keys(regions)).to.deep.equal(['europe', 'us-east']);
      for (const name of ['europe', 'us-east']) {
        expect(regions[name].processes, name).to.equal(1);
        expect(regions[name].status, name).to.be.oneOf(['healthy', 'degraded', 'unhealthy']);
        expect(regions[name].latency, name).to.be.a('number').above(0);
        expect(regions[name].load, name).to.be.a('number').within(0, 1);
      }
    }
  });

  it('reports a region whose processes stopped as unhealthy, without figures, and forgets one shut down cleanly', async () => {
    // A worker process in a third region, killed without a chance to say so.
    const worker = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist/workers/main.js')], {
      env: { ...process.env, ...testEnv({ QUEUE_PREFIX: prefix, REGION: 'asia' }) }, stdio: 'ignore',
    });
    try {
      const asia = await eventually(async () => (await call(east.url, '/v1/health')).json.data.regions.asia, 15_000);
      expect(asia).to.include({ status: 'healthy', processes: 1 });
      expect(asia.latency).to.be.a('number');
    } finally {
      worker.kill('SIGKILL');
    }
    const gone = await eventually(async () => {
      const region = (await call(east.url, '/v1/health')).json.data.regions.asia;
      return region?.processes === 0 ? region : undefined;
    }, 10_000);
    expect(gone).to.deep.equal({ status: 'unhealthy', latency: null, load: null, processes: 0 });

    await west.close();
    // Closed cleanly, the process removed its snapshot: its region is gone from the report.
    const data = (await call(east.url, '/v1/health')).json.data;
    expect(Object.keys(data.regions)).to.deep.equal(['asia', 'us-east']);
  });
});

describe('worker liveness across processes', function () {
  this.timeout(60_000);
  let api: TestService;
  let second: TestService;
  let worker: ChildProcess | undefined;
  let replacement: ChildProcess | undefined;
  const env = testEnv();

  before(async () => {
    api = await startTestService({ QUEUE_PREFIX: env.QUEUE_PREFIX! }, 'api');
    second = await startTestService({ QUEUE_PREFIX: env.QUEUE_PREFIX! }, 'api');
  });
  after(async () => {
    worker?.kill('SIGKILL');
    replacement?.kill('SIGKILL');
    await Promise.all([api.close(), second.close()]);
  });

  const startWorker = () => spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist/workers/main.js')], { env: { ...process.env, ...env }, stdio: 'ignore' });
  type Incident = { id: string; component: string; status: string; started_at: string; resolved_at: string | null };

  it('shows a worker process that died as down, and the service as unhealthy without another', async () => {
    const workersOf = async () => (await call(api.url, '/v1/health')).json.data.services.workers;
    expect((await workersOf()).alive).to.equal(0);

    worker = startWorker();
    await until(async () => (await workersOf()).alive === 1, 15_000);
    const before = await call(api.url, '/v1/health');
    expect(before.json.data.services.extraction_service.status).to.equal('healthy');
    expect(before.json.data.services.search_engine.status).to.equal('healthy');
    expect(before.json.data.services.validation_service.status).to.equal('healthy');
    expect(before.json.data.services.cpu_pool.threads).to.be.at.least(1);

    worker.kill('SIGKILL');
    await until(async () => (await workersOf()).down === 1, 5000);
    const after = (await call(api.url, '/v1/health')).json.data;
    expect(after.status).to.equal('unhealthy');
    expect(after.services.workers.instances[0]).to.include({ status: 'down' });
    expect(after.services.extraction_service.status).to.equal('unhealthy');
    expect(after.services.search_engine.status).to.equal('unhealthy');
    expect(after.services.validation_service.status).to.equal('unhealthy');
    expect(after.recent_incidents.map((i: { component: string }) => i.component)).to.include('workers');
    // Checks found the service unhealthy (before the first worker, and now).
    expect(after.uptime).to.be.below(100);
  });

  it('records the incident of the missing worker with its start, and its end when a worker returns, seen by every API process', async () => {
    const openWorkers = (incidents: Incident[]) => incidents.find((i) => i.component === 'workers' && i.status === 'unhealthy' && i.resolved_at === null);
    const open = openWorkers((await call(api.url, '/v1/health')).json.data.recent_incidents)!;
    expect(open, 'an open incident').to.not.equal(undefined);
    expect(isTimestamp(open.started_at)).to.equal(true);
    // The other API process reports the same incident.
    const seenBySecond = (await call(second.url, '/v1/health')).json.data.recent_incidents as Incident[];
    expect(seenBySecond.find((i) => i.id === open.id)).to.deep.include({ component: 'workers', resolved_at: null, started_at: open.started_at });

    replacement = startWorker();
    const ended = await eventually(async () => {
      const incidents = (await call(second.url, '/v1/health')).json.data.recent_incidents as Incident[];
      const incident = incidents.find((i) => i.id === open.id);
      return incident?.resolved_at ? incident : undefined;
    }, 15_000);
    expect(ended.started_at).to.equal(open.started_at);
    expect(Date.parse(ended.resolved_at!)).to.be.at.least(Date.parse(open.started_at));
    // The dead worker is still listed (down) beside the new one: workers is degraded, an incident of its own.
    const data = (await call(api.url, '/v1/health')).json.data;
    expect(data.services.workers).to.include({ alive: 1, down: 1, status: 'degraded' });
    expect(data.recent_incidents.find((i: Incident) => i.id === open.id).resolved_at).to.equal(ended.resolved_at);
    expect(data.recent_incidents.some((i: Incident) => i.component === 'workers' && i.status === 'degraded' && i.resolved_at === null)).to.equal(true);
    expectSchema('health.response', data);
  });
});
