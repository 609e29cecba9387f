import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { call, startTestService, type TestService } from './helpers/service.js';
import { until } from './helpers/wait.js';
import { freePort } from './helpers/free-port.js';

function startRedis(port: number): ChildProcess {
  return spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
}

describe('Redis outage', function () {
  this.timeout(60_000);
  let port: number;
  let redis: ChildProcess;
  let service: TestService;

  before(async () => {
    port = await freePort();
    redis = startRedis(port);
    await until(async () => {
      try {
        service = await startTestService({ REDIS_URL: `redis://127.0.0.1:${port}`, SHUTDOWN_TIMEOUT_MS: '3000' });
        return true;
      } catch {
        return false;
      }
    }, 10_000);
  });
  after(async () => {
    await service?.close();
    redis.kill('SIGKILL');
  });

  it('refuses metered requests with 503 SERVICE_UNAVAILABLE while Redis is down, and serves again when it is back', async () => {
    expect((await call(service.url, '/v1/auth/whoami')).status).to.equal(200);

    redis.kill('SIGKILL');
    await new Promise((resolve) => redis.once('exit', resolve));
    const started = Date.now();
    const refused = await call(service.url, '/v1/auth/whoami');
    expect(Date.now() - started, 'answered promptly, not after a hang').to.be.below(10_000);
    expect(refused.status).to.equal(503);
    expect(refused.json.error.code).to.equal('SERVICE_UNAVAILABLE');
    expect(refused.json.error.details).to.have.property('status_page', '/v1/health');

    redis = startRedis(port);
    await until(async () => (await call(service.url, '/v1/auth/whoami')).status === 200, 20_000);
  });

  it('still shuts down within its deadline after the outage', async () => {
    // BullMQ workers may never finish closing once their blocking connection lost Redis; the shutdown must not wait for them.
    const started = Date.now();
    await service.close();
    expect(Date.now() - started).to.be.below(3000 + 2000);
  });
});
