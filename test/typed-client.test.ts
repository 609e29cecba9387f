import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { SevClient, SevError } from '../clients/typescript/src/index.js';
import { buildOpenApi } from '../src/http/openapi.js';
import { ROUTES } from '../src/http/routes/index.js';
import { VERSION } from '../src/version.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { call, startTestService, TEST_KEY, type TestService } from './helpers/service.js';
import { html, startPageServer, type PageServer } from './helpers/page-server.js';
import { createKey } from './helpers/accounts.js';

const CLIENT = path.join(PROJECT_ROOT, 'clients', 'typescript');

describe('typed client (clients/typescript)', function () {
  this.timeout(60_000);

  describe('generated types', () => {
    it('were generated from the OpenAPI document the service serves: regenerate with npm run client:generate', async () => {
      const committed = JSON.parse(readFileSync(path.join(CLIENT, 'openapi.json'), 'utf8')) as unknown;
      // Round-tripped through JSON, as the file was written.
      const current = JSON.parse(JSON.stringify(buildOpenApi(ROUTES, VERSION))) as unknown;
      expect(current, 'clients/typescript/openapi.json differs from the OpenAPI document: run npm run client:generate').to.deep.equal(committed);
      const { generate } = await import(pathToFileURL(path.join(CLIENT, 'generate.mjs')).href) as { generate(file: string): Promise<string> };
      const types = await generate(path.join(CLIENT, 'openapi.json'));
      expect(types === readFileSync(path.join(CLIENT, 'src', 'schema.ts'), 'utf8'),
        'clients/typescript/src/schema.ts differs from what openapi.json generates: run npm run client:generate').to.equal(true);
    });
  });

  describe('against the service', () => {
    let service: TestService;
    let pages: PageServer;
    let proxy: FaultProxy;
    let client: SevClient;

    before(async () => {
      pages = await startPageServer({
        '/page': html('<html><head><title>Tea</title></head><body><article><p>Green tea is brewed with water at 70 to 80 degrees Celsius for two to three minutes, and boiling water makes it bitter.</p></article></body></html>'),
      });
      service = await startTestService();
      proxy = await startFaultProxy(service.url);
      client = new SevClient({ baseUrl: service.url, apiKey: TEST_KEY, timeoutMs: 20_000 });
    });
    after(async () => {
      await proxy?.close();
      await service?.close();
      await pages?.close();
    });

    it('sends typed requests and returns the data of typed answers', async () => {
      const indexed = await client.indexDocuments({ documents: [{ url: 'https://notes.example/tea', title: 'Brewing green tea', content: 'Green tea is brewed with water at 70 to 80 degrees Celsius for two to three minutes. Boiling water makes it bitter.' }] });
      expect(indexed.state).to.equal('completed');
      const found = await client.search({ query: 'green tea water temperature', format: 'json', domain_filter: { include: ['notes.example'] }, options: { enable_cache: false } });
      expect(found.sources?.[0]?.url).to.equal('https://notes.example/tea');
      const extracted = await client.extract({ url: `${pages.url}/page`, format: 'text' });
      expect(extracted.content).to.include('70 to 80 degrees');
      const summary = await client.summarize({ urls: [`${pages.url}/page`], format: 'text' });
      expect(summary.summary).to.include('[1]');
      const who = await client.whoami();
      expect(who.type).to.equal('master');
      const job = await client.request('get', '/v1/index/jobs/{id}', undefined, { path: { id: indexed.job_id! } });
      expect(job.state).to.equal('completed');
    });

    it('throws SevError with the catalogue code, status, details and whether a retry may help', async () => {
      const invalid = await client.search({ query: 'x', max_results: 99 }).catch((error: unknown) => error);
      expect(invalid).to.be.instanceOf(SevError);
      expect(invalid).to.include({ code: 'INVALID_MAX_RESULTS', status: 400, retryable: false });
      expect((invalid as SevError).details).to.include({ parameter: 'max_results', provided: 99 });
      expect((invalid as SevError).requestId).to.match(/^req_/);

      const anonymous = await new SevClient({ baseUrl: service.url, apiKey: 'sev_live_nonsense' }).whoami().catch((error: unknown) => error);
      expect(anonymous).to.include({ code: 'INVALID_API_KEY', status: 401, retryable: false });

      const searchOnly = await createKey(service.url, { type: 'scoped', permissions: ['search'] });
      const refused = await new SevClient({ baseUrl: service.url, apiKey: searchOnly.key }).summarize({ text: 'Some text to summarise here.' }).catch((error: unknown) => error);
      expect(refused).to.include({ code: 'INSUFFICIENT_PERMISSIONS', status: 403, retryable: false });
      expect((refused as SevError).details).to.have.property('required_permission');
    });

    it('retries 429 after Retry-After and 5xx with backoff, then gives up with the last error', async () => {
      const through = new SevClient({ baseUrl: proxy.url, apiKey: TEST_KEY, retries: 2 });
      proxy.fail([{ status: 429, retryAfter: 1 }, { status: 503 }]);
      const started = Date.now();
      const who = await through.whoami();
      expect(who.type).to.equal('master');
      expect(proxy.requests).to.equal(3);
      // Retry-After: 1 was waited for before the second attempt.
      expect(Date.now() - started).to.be.at.least(1000);

      proxy.fail([{ status: 503 }, { status: 502 }, { status: 500 }]);
      const failed = await through.whoami().catch((error: unknown) => error);
      expect(proxy.requests).to.equal(3);
      expect(failed).to.include({ code: 'INTERNAL_SERVER_ERROR', status: 500, retryable: true });

      // A real rate limit of the service: refused at once when no retry is allowed.
      const limited = await createKey(service.url, { type: 'scoped', permissions: ['search'], rate_limit: 1 });
      const once = new SevClient({ baseUrl: service.url, apiKey: limited.key, retries: 0 });
      await once.whoami();
      const over = await once.whoami().catch((error: unknown) => error);
      expect(over).to.include({ code: 'RATE_LIMITED', status: 429, retryable: true });
      expect((over as SevError).details).to.have.property('retry_after');
    });

    it('times out an attempt that takes too long, without retrying it', async () => {
      const slow = new SevClient({ baseUrl: proxy.url, apiKey: TEST_KEY, timeoutMs: 300, retries: 3 });
      proxy.fail([{ delayMs: 2000 }]);
      const error = await slow.whoami().catch((failure: unknown) => failure);
      expect(error).to.include({ code: 'TIMEOUT', status: 0, retryable: true });
      expect(proxy.requests).to.equal(1);
    });
  });
});

interface Fault {
  status?: number;
  retryAfter?: number;
  delayMs?: number;
}

interface FaultProxy {
  url: string;
  /** Requests received since the last fail(). */
  requests: number;
  /** The next requests meet these faults, one each; then requests pass to the service. */
  fail(faults: Fault[]): void;
  close(): Promise<void>;
}

/** A proxy in front of the service that answers the next requests with the faults given, as an overloaded front end would. */
async function startFaultProxy(target: string): Promise<FaultProxy> {
  let faults: Fault[] = [];
  const state = { requests: 0 };
  const server: Server = createServer((req, res) => {
    state.requests++;
    const fault = faults.shift();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => void (async () => {
      if (fault?.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      if (fault?.status) {
        const code = fault.status === 429 ? 'RATE_LIMITED' : fault.status === 503 ? 'SERVICE_UNAVAILABLE' : fault.status === 502 ? 'UPSTREAM_ERROR' : 'INTERNAL_SERVER_ERROR';
        res.writeHead(fault.status, { 'content-type': 'application/json', ...(fault.retryAfter ? { 'retry-after': String(fault.retryAfter) } : {}) });
        res.end(JSON.stringify({ success: false, error: { code, message: 'injected by the test' }, request_id: 'req_proxy', timestamp: new Date().toISOString() }));
        return;
      }
      const answer = await call(target, req.url ?? '/', { method: req.method ?? 'GET', headers: { authorization: req.headers.authorization ?? '' }, key: null, ...(chunks.length ? { body: Buffer.concat(chunks).toString() } : {}) });
      if (res.destroyed) return;
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.json));
    })());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return state.requests;
    },
    fail(list) {
      faults = [...list];
      state.requests = 0;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
