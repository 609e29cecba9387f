import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';
import { freePort } from './helpers/free-port.js';
import { testEnv } from './helpers/service.js';
import { until } from './helpers/wait.js';

interface Started {
  child: ChildProcess;
  url: string;
  exited: Promise<void>;
}

/** `npm start`'s process logging at `info`, as by default, to a pipe the test reads only if it says so. */
async function start(env: Record<string, string> = {}): Promise<Started> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist/src/main.js')], {
    env: { ...process.env, ...testEnv({ PORT: String(port), LOG_LEVEL: 'info', ...env }) },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  await until(() => fetch(`${url}/livez`).then((r) => r.ok, () => false), 30_000);
  return { child, url, exited };
}

/** `count` probes, 32 at a time; each is a request line in the access log. */
async function probe(url: string, count: number): Promise<void> {
  let left = count;
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (left-- > 0) {
      const response = await fetch(`${url}/livez`);
      expect(response.status).to.equal(200);
      await response.arrayBuffer();
    }
  }));
}

describe('logging', function () {
  this.timeout(60_000);
  let started: Started | undefined;
  afterEach(() => {
    started?.child.kill('SIGKILL');
    started = undefined;
  });

  it('keeps answering while nothing reads its log', async () => {
    started = await start({ ACCESS_LOG: 'on' });
    // Nothing reads the pipe: about 300 B a line, 2,000 lines fill the pipe and the reader's buffer many times over.
    const began = Date.now();
    await probe(started.url, 2000);
    expect(Date.now() - began, 'a full log pipe stalled the requests').to.be.below(30_000);
  });

  /** Every line the process writes until it exits after SIGTERM, once `work` is done. */
  async function linesUntilExit(work: (url: string) => Promise<void>): Promise<Array<{ msg?: string; path?: string; request_id?: string }>> {
    const lines: string[] = [];
    let rest = '';
    started!.child.stdout!.on('data', (chunk: Buffer) => {
      const parts = (rest + chunk.toString()).split('\n');
      rest = parts.pop()!;
      lines.push(...parts);
    });
    await work(started!.url);
    started!.child.kill('SIGTERM');
    await started!.exited;
    return lines.map((line) => JSON.parse(line) as { msg?: string; path?: string; request_id?: string });
  }

  it('writes every line to stdout with ACCESS_LOG on, the last ones at a graceful shutdown', async () => {
    started = await start({ ACCESS_LOG: 'on' });
    const entries = await linesUntilExit((url) => probe(url, 500));
    const requests = entries.filter((entry) => entry.msg === 'request' && entry.path === '/livez');
    // The readiness polls before the 500 are logged too.
    expect(requests.length).to.be.at.least(500);
    expect(new Set(requests.map((entry) => entry.request_id)).size).to.equal(requests.length);
    expect(entries.some((entry) => entry.msg === 'shutting down')).to.equal(true);
  });

  it('writes no line per request by default: the audit log keeps them', async () => {
    started = await start();
    const entries = await linesUntilExit(async (url) => {
      await probe(url, 50);
      // A client's error is in the audit log, not the process log.
      const refused = await fetch(`${url}/v1/search`, { method: 'POST', headers: { authorization: 'Bearer sev_live_wrong' } });
      expect(refused.status).to.equal(401);
    });
    expect(entries.filter((entry) => entry.msg === 'request')).to.deep.equal([]);
    expect(entries.some((entry) => typeof entry.msg === 'string' && entry.msg.startsWith('listening on'))).to.equal(true);
  });
});
