import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';
import { call, startTestService, testEnv, type TestService } from './helpers/service.js';
import { until } from './helpers/wait.js';

describe('GET /v1/health', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('reports every component from real checks', async () => {
    const res = await call(service.url, '/v1/health');
    expect(res.status).to.equal(200);
    const data = res.json.data;
    expect(data.status).to.equal('healthy');
    expect(data.version).to.match(/^v\d+\.\d+\.\d+$/);
    expect(Date.parse(data.timestamp)).to.be.closeTo(Date.now(), 5000);
    expect(data.uptime).to.be.within(0, 100);
    for (const name of ['database', 'cache_layer', 'job_queue', 'workers', 'cpu_pool', 'search_engine', 'extraction_service']) {
      expect(data.services[name].status, name).to.equal('healthy');
      expect(Date.parse(data.services[name].last_check), name).to.not.be.NaN;
    }
    expect(data.services.database.response_time).to.be.a('number').and.lessThan(2);
    expect(data.services.database.connection_pool).to.match(/^\d+\/10 connections in use/);
    expect(data.services.cache_layer.response_time).to.be.a('number');
    expect(data.services.job_queue.depth.extract).to.include.keys('waiting', 'active', 'failed');
    expect(data.services.workers.alive).to.equal(1);
    expect(data.services.cpu_pool.threads).to.be.at.least(1);
    expect(data.regions.local).to.include.keys('status', 'latency', 'load');
    expect(data.recent_incidents).to.be.an('array');
  });
});

describe('worker liveness across processes', () => {
  let api: TestService;
  let worker: ChildProcess | undefined;
  const env = testEnv();

  before(async () => {
    api = await startTestService({ QUEUE_PREFIX: env.QUEUE_PREFIX! }, 'api');
  });
  after(async () => {
    worker?.kill('SIGKILL');
    await api.close();
  });

  it('shows a worker process that died as down, and the service as unhealthy without another', async () => {
    const workersOf = async () => (await call(api.url, '/v1/health')).json.data.services.workers;
    expect((await workersOf()).alive).to.equal(0);

    worker = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist/workers/main.js')], { env: { ...process.env, ...env }, stdio: 'ignore' });
    await until(async () => (await workersOf()).alive === 1, 15_000);
    const before = await call(api.url, '/v1/health');
    expect(before.json.data.services.extraction_service.status).to.equal('healthy');
    expect(before.json.data.services.search_engine.status).to.equal('healthy');
    expect(before.json.data.services.cpu_pool.threads).to.be.at.least(1);

    worker.kill('SIGKILL');
    await until(async () => (await workersOf()).down === 1, 5000);
    const after = (await call(api.url, '/v1/health')).json.data;
    expect(after.status).to.equal('unhealthy');
    expect(after.services.workers.instances[0]).to.include({ status: 'down' });
    expect(after.services.extraction_service.status).to.equal('unhealthy');
    expect(after.services.search_engine.status).to.equal('unhealthy');
    expect(after.recent_incidents.map((i: { component: string }) => i.component)).to.include('workers');
  });
});
