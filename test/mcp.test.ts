import path from 'node:path';
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { call, startTestService, TEST_KEY, type TestService } from './helpers/service.js';
import { html, startPageServer, type PageServer } from './helpers/page-server.js';
import { createKey } from './helpers/accounts.js';
import { until } from './helpers/wait.js';

const TOOL_NAMES = ['search', 'extract', 'summarize', 'validate', 'crawl', 'index_documents'];

const TEA = '<html><head><title>Brewing green tea</title></head><body><article><h1>Brewing green tea</h1>'
  + '<p>Green tea is brewed with water at 70 to 80 degrees Celsius for two to three minutes.</p>'
  + '<p>Boiling water makes green tea bitter, because it draws out too many tannins from the leaves.</p>'
  + '<p>See also <a href="/oolong">oolong tea</a>.</p></article></body></html>';
const OOLONG = '<html><head><title>Oolong tea</title></head><body><article><p>Oolong tea is partly oxidised and brewed at 85 to 95 degrees Celsius, hotter than green tea.</p></article></body></html>';

type Text = { type: string; text: string }[];
const textOf = (result: unknown) => ((result as { content: Text }).content).map((c) => c.text).join('\n');

describe('MCP server', function () {
  this.timeout(60_000);
  let service: TestService;
  let site: PageServer;

  before(async () => {
    site = await startPageServer({ '/': html(TEA), '/oolong': html(OOLONG) });
    service = await startTestService();
  });
  after(async () => {
    await service?.close();
    await site?.close();
  });

  async function httpClient(key: string): Promise<Client> {
    const client = new Client({ name: 'sev-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    return client;
  }

  describe('over Streamable HTTP at /mcp', () => {
    let client: Client;
    before(async () => {
      client = await httpClient(TEST_KEY);
    });
    after(async () => client?.close());

    it('lists the tools, with the API\'s request schemas as input schemas', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).to.deep.equal(TOOL_NAMES);
      const search = tools.find((t) => t.name === 'search')!;
      expect(search.inputSchema.properties).to.include.keys('query', 'max_results', 'max_tokens', 'chunks_per_source');
      expect(search.inputSchema.required).to.deep.equal(['query']);
      expect(JSON.stringify(tools)).not.to.include('"$ref":"index-document"');
      for (const tool of tools) expect(tool.description!.length, tool.name).to.be.greaterThan(80);
    });

    it('calls every tool against the running service', async () => {
      // A document of this test's own (other test files of the run share the index).
      const indexed = await client.callTool({ name: 'index_documents', arguments: { documents: [{ url: 'https://mcp-notes.example/tea', title: 'Steeping white tea', content: 'White tea is steeped with water at 75 to 85 degrees Celsius for four or five minutes. It tolerates a second steeping.' }] } });
      expect(indexed.isError, textOf(indexed)).to.not.equal(true);
      expect(textOf(indexed)).to.include('completed').and.include('indexed 1');

      const searched = await client.callTool({ name: 'search', arguments: { query: 'white tea steeping water temperature', domain_filter: { include: ['mcp-notes.example'] } } });
      expect(searched.isError, textOf(searched)).to.not.equal(true);
      expect(textOf(searched)).to.match(/\[1\]/).and.include('Sources:').and.include('https://mcp-notes.example/tea');

      const extracted = await client.callTool({ name: 'extract', arguments: { url: `${site.url}/`, max_tokens: 50 } });
      expect(textOf(extracted)).to.include('# Brewing green tea').and.include('70 to 80 degrees').and.include('Cut to max_tokens 50');

      const summarized = await client.callTool({ name: 'summarize', arguments: { urls: [`${site.url}/`], query: 'boiling water' } });
      expect(textOf(summarized)).to.include('bitter').and.match(/\[1\]/).and.include(`[1] Brewing green tea ${site.url}/`);

      const validated = await client.callTool({ name: 'validate', arguments: { claim: 'Green tea is brewed with water at 70 to 80 degrees Celsius.', sources: [`${site.url}/`] } });
      expect(textOf(validated)).to.match(/^Verdict: (VERIFIED|LIKELY_TRUE)/);

      const started = await client.callTool({ name: 'crawl', arguments: { urls: [`${site.url}/`], max_pages: 5 } });
      const crawlId = /Crawl (crawl_\S+):/.exec(textOf(started))?.[1];
      expect(crawlId, textOf(started)).to.be.a('string');
      let polled = '';
      await until(async () => {
        polled = textOf(await client.callTool({ name: 'crawl', arguments: { crawl_id: crawlId } }));
        return /: (completed|failed|cancelled)/.test(polled);
      }, 30_000);
      expect(polled).to.include(': completed').and.include('2 fetched');
    });

    it('answers a refusal of the API as a tool error naming its code', async () => {
      const invalid = await client.callTool({ name: 'search', arguments: { query: 'tea', max_results: 99 } });
      expect(invalid.isError).to.equal(true);
      expect(textOf(invalid)).to.match(/^Error INVALID_MAX_RESULTS \(HTTP 400\)/).and.include('Retrying the same call will not help');
      const unknown = await client.callTool({ name: 'teleport', arguments: {} });
      expect(unknown.isError).to.equal(true);
    });

    it('applies the key\'s scopes, and audits each tool call as the API request it makes', async () => {
      const searchOnly = await createKey(service.url, { type: 'scoped', permissions: ['search', 'monitor'] });
      const scoped = await httpClient(searchOnly.key);
      try {
        const refused = await scoped.callTool({ name: 'summarize', arguments: { text: 'Green tea is brewed with water at 70 to 80 degrees Celsius.' } });
        expect(refused.isError).to.equal(true);
        expect(textOf(refused)).to.match(/^Error INSUFFICIENT_PERMISSIONS \(HTTP 403\)/).and.include('summarize');
        const allowed = await scoped.callTool({ name: 'search', arguments: { query: 'green tea' } });
        expect(allowed.isError, textOf(allowed)).to.not.equal(true);
      } finally {
        await scoped.close();
      }
      await until(async () => {
        const log = await call(service.url, '/v1/audit?limit=100', { key: searchOnly.key });
        const endpoints = (log.json.data?.entries ?? []).map((e: { endpoint: string; status: number }) => `${e.endpoint} ${e.status}`);
        return endpoints.includes('/v1/summarize 403') && endpoints.includes('/v1/search 200') && endpoints.includes('/mcp 200');
      }, 15_000);
    });

    it('refuses an MCP request without a key', async () => {
      const response = await call(service.url, '/mcp', {
        key: null, headers: { accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
      });
      expect(response.status).to.equal(401);
      expect(response.json.error.code).to.equal('MISSING_API_KEY');
      const client = new Client({ name: 'sev-test', version: '1.0.0' });
      const refused = await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`))).then(() => 'connected', (error: Error) => error.message);
      expect(refused).to.include('MISSING_API_KEY');
    });

    it('answers what is not JSON-RPC in the API\'s error envelope', async () => {
      const response = await call(service.url, '/mcp', { body: { hello: 'world' } });
      expect(response.status).to.equal(400);
      expect(response.json.error.code).to.equal('INVALID_PARAMETER');
      expect(response.json.error.details.parameter).to.equal('body');
    });
  });

  describe('over stdio (npm run mcp)', () => {
    it('talks to the service at SEV_URL with SEV_API_KEY', async () => {
      const client = new Client({ name: 'sev-test', version: '1.0.0' });
      await client.connect(new StdioClientTransport({
        command: process.execPath,
        args: [path.join(PROJECT_ROOT, 'dist', 'src', 'mcp', 'stdio.js')],
        env: { ...process.env as Record<string, string>, SEV_URL: service.url, SEV_API_KEY: TEST_KEY },
        stderr: 'ignore',
      }));
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).to.deep.equal(TOOL_NAMES);
        const extracted = await client.callTool({ name: 'extract', arguments: { url: `${site.url}/oolong`, format: 'text' } });
        expect(textOf(extracted)).to.include('85 to 95 degrees');
        const refused = await client.callTool({ name: 'crawl', arguments: { crawl_id: 'crawl_nothing' } });
        expect(refused.isError).to.equal(true);
        expect(textOf(refused)).to.match(/^Error NOT_FOUND \(HTTP 404\)/);
      } finally {
        await client.close();
      }
    });
  });
});
