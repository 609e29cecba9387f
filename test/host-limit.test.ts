import { expect } from 'chai';
import pLimit from 'p-limit';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../src/errors/catalogue.js';
import type { FetchOptions } from '../src/fetch/fetch-page.js';
import { fetchPage } from './helpers/fetch-as-client.js';
import { busyHostCount, withHostSlot } from '../src/fetch/host-limit.js';
import { startPageServer, type PageServer } from './helpers/page-server.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('per-host concurrency', () => {
  describe('withHostSlot', () => {
    it('runs at most N tasks of one host at once and forgets the host when idle', async () => {
      let active = 0;
      let peak = 0;
      const task = async (): Promise<number> => {
        active++;
        peak = Math.max(peak, active);
        await sleep(20);
        active--;
        return 1;
      };
      const signal = new AbortController().signal;
      const results = await Promise.all(Array.from({ length: 10 }, () => withHostSlot('unit.test', 3, signal, task)));
      expect(results).to.have.length(10);
      expect(peak).to.equal(3);
      await sleep(0);
      expect(busyHostCount()).to.equal(0);
    });

    it('rejects a queued caller at once when it aborts, and never runs its task', async () => {
      const signal = new AbortController().signal;
      const first = withHostSlot('abort.test', 1, signal, () => sleep(200));
      const controller = new AbortController();
      let ran = false;
      const second = withHostSlot('abort.test', 1, controller.signal, async () => {
        ran = true;
      });
      const reason = new Error('gave up');
      const started = Date.now();
      setTimeout(() => controller.abort(reason), 20);
      try {
        await second;
        expect.fail('expected the queued call to reject');
      } catch (error) {
        expect(error).to.equal(reason);
      }
      expect(Date.now() - started).to.be.lessThan(150);
      await first;
      await sleep(0);
      expect(ran).to.equal(false);
      expect(busyHostCount()).to.equal(0);
    });

    it('passes a task’s failure on and frees its slot', async () => {
      const signal = new AbortController().signal;
      const failure = new Error('boom');
      try {
        await withHostSlot('fail.test', 1, signal, () => Promise.reject(failure));
        expect.fail('expected a rejection');
      } catch (error) {
        expect(error).to.equal(failure);
      }
      expect(await withHostSlot('fail.test', 1, signal, async () => 'next')).to.equal('next');
    });
  });

  describe('through fetchPage', function () {
    this.timeout(10_000);

    let site: PageServer;
    let port: string;
    let active = 0;
    let peak = 0;
    const hosts = new Set<string>();
    const options: FetchOptions = { timeoutMs: 5000, maxBytes: 100_000, maxRedirects: 2, userAgent: 'sev-test/1.0', allowedCidrs: ['127.0.0.1/32'] };

    function slow(ms: number) {
      return (req: IncomingMessage, res: ServerResponse): void => {
        active++;
        peak = Math.max(peak, active);
        hosts.add(req.headers.host ?? '');
        const timer = setTimeout(() => {
          active--;
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<p>done</p>');
        }, ms);
        res.on('close', () => {
          if (!res.writableEnded) {
            clearTimeout(timer);
            active--;
          }
        });
      };
    }

    before(async () => {
      site = await startPageServer({ '/slow': slow(100), '/slower': slow(400), '/very-slow': slow(1000) });
      port = new URL(site.url).port;
    });

    after(() => site.close());

    beforeEach(() => {
      active = 0;
      peak = 0;
      hosts.clear();
    });

    it('never has more than N requests in flight to one host', async () => {
      for (const perHostConcurrency of [2, 3]) {
        peak = 0;
        const pages = await Promise.all(Array.from({ length: 10 }, () => fetchPage(`${site.url}/slow`, { ...options, perHostConcurrency })));
        expect(pages.every((p) => p.status === 200)).to.equal(true);
        expect(peak, `perHostConcurrency ${perHostConcurrency}`).to.equal(perHostConcurrency);
      }
    });

    it('defaults to 2 per host', async () => {
      await Promise.all(Array.from({ length: 6 }, () => fetchPage(`${site.url}/slow`, options)));
      expect(peak).to.equal(2);
    });

    it('does not hold up one host for another', async () => {
      const started = Date.now();
      await Promise.all([
        fetchPage(`http://127.0.0.1:${port}/slower`, { ...options, perHostConcurrency: 1 }),
        fetchPage(`http://localhost:${port}/slower`, { ...options, perHostConcurrency: 1 }),
      ]);
      expect(hosts).to.deep.equal(new Set([`127.0.0.1:${port}`, `localhost:${port}`]));
      expect(peak).to.equal(2);
      expect(Date.now() - started).to.be.lessThan(750);
    });

    it('takes the process-wide slots inside the host slot, so a queue for one host never starves another', async () => {
      // Two process slots, one per host: six jobs for a slow host wait for their host, not in
      // front of the other host's fetch.
      const processSlots = pLimit(2);
      const started = Date.now();
      const crowd = Array.from({ length: 6 }, () => fetchPage(`http://127.0.0.1:${port}/slower`, { ...options, perHostConcurrency: 1, processSlots }));
      await sleep(20);
      const other = await fetchPage(`http://localhost:${port}/slow`, { ...options, perHostConcurrency: 1, processSlots });
      expect(other.status).to.equal(200);
      expect(Date.now() - started).to.be.lessThan(350);
      await Promise.all(crowd);
    });

    it('counts the wait for a slot against the fetch deadline', async () => {
      const busy = fetchPage(`${site.url}/very-slow`, { ...options, perHostConcurrency: 1 });
      await sleep(20);
      const started = Date.now();
      try {
        await fetchPage(`${site.url}/slow`, { ...options, perHostConcurrency: 1, timeoutMs: 200 });
        expect.fail('expected a time-out');
      } catch (error) {
        expect(error).to.be.instanceOf(ApiError);
        expect((error as ApiError).details).to.deep.equal({ url: `${site.url}/slow`, reason: 'timed out after 0.2s' });
      }
      expect(Date.now() - started).to.be.lessThan(600);
      await busy;
    });

    it('keeps no entry for hosts that are idle', async () => {
      await Promise.all([fetchPage(`http://127.0.0.1:${port}/slow`, options), fetchPage(`http://localhost:${port}/slow`, options)]);
      await sleep(0);
      expect(busyHostCount()).to.equal(0);
    });
  });
});
