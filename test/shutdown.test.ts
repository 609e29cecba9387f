import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { PROJECT_ROOT } from '../src/paths.js';
import { ARTICLE, startPageServer, type PageServer } from './helpers/page-server.js';
import { call, testEnv } from './helpers/service.js';

interface Started {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

/** Starts `npm start`'s process (node dist/src/main.js) and waits for its "listening" log line. */
async function startProcess(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist/src/main.js')], {
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('service did not start')), 15_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg?.startsWith('listening on') && entry.url) {
        clearTimeout(timer);
        resolve(entry.url);
      }
    });
  });
  return { child, url, exited };
}

describe('graceful shutdown on SIGTERM', function () {
  // Each test starts a whole service in a child process: seconds on a loaded two-core machine.
  this.timeout(60_000);
  let site: PageServer;
  let started: Started | undefined;
  before(async () => {
    const slow = (delayMs: number) => (_req: unknown, res: import('node:http').ServerResponse) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(ARTICLE);
      }, delayMs).unref();
    };
    // The very slow page outlasts the extract's 20 s limit, so a shutdown that waited for the job
    // instead of keeping its deadline would take 20 s.
    site = await startPageServer({ '/slow': slow(1500), '/very-slow': slow(60_000) });
  });
  afterEach(() => {
    started?.child.kill('SIGKILL');
  });
  after(() => site.close());

  it('finishes the running extract job, answers the client and exits 0', async () => {
    started = await startProcess(testEnv());
    const pending = call(started.url, '/v1/extract', { body: { url: `${site.url}/slow`, format: 'text' } });
    await new Promise((resolve) => setTimeout(resolve, 400));
    started.child.kill('SIGTERM');
    const res = await pending;
    expect(res.status).to.equal(200);
    expect(res.json.data.content).to.include('Every request travels');
    expect(await started.exited).to.equal(0);
  });

  it('answers SERVICE_UNAVAILABLE when the job outlives the drain time, and still exits 0', async () => {
    started = await startProcess(testEnv({ SHUTDOWN_TIMEOUT_MS: '3000' }));
    const pending = call(started.url, '/v1/extract', { body: { url: `${site.url}/very-slow`, options: { timeout: 20 } } });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const signalled = Date.now();
    started.child.kill('SIGTERM');
    const res = await pending;
    expect(res.status).to.equal(503);
    expect(res.json.error.code).to.equal('SERVICE_UNAVAILABLE');
    expect(await started.exited).to.equal(0);
    // SHUTDOWN_TIMEOUT_MS is 3 s; the rest is process exit, which a loaded machine slows. A
    // shutdown that ignored its deadline would wait for the job's 20 s limit.
    expect(Date.now() - signalled).to.be.lessThan(15_000);
  });
});
