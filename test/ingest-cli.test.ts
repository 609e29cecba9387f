import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { call, startTestService, TEST_KEY, type TestService } from './helpers/service.js';
import { runCli, type CliRun } from './helpers/cli.js';

const CLI = fileURLToPath(new URL('../src/cli/ingest.js', import.meta.url));

function ingest(args: string[], env: Record<string, string>): Promise<CliRun> {
  return runCli(CLI, args, env);
}

describe('npm run ingest', function () {
  this.timeout(120_000);
  let service: TestService;
  /** Every run indexes under its own host, removed afterwards. */
  const host = `${randomUUID()}.example`;

  before(async () => {
    service = await startTestService();
  });
  after(async () => {
    await call(service.url, '/v1/index/documents', { method: 'DELETE', body: { domain: host } });
    await service.close();
  });

  it('indexes a JSONL file in batches through the API and reports refused lines by number', async () => {
    const lines = Array.from({ length: 75 }, (_, i) => JSON.stringify({
      url: `https://${host}/${i}`, title: `Line ${i + 1}`, content: `# Heading ${i}\n\nThe *body* of markdown document ${i}.`, content_type: 'markdown',
    }));
    lines[9] = '{"url": "broken';
    lines[39] = JSON.stringify({ url: `https://${host}/no-title`, content: 'text' });
    const file = path.join(os.tmpdir(), `sev-ingest-${randomUUID()}.jsonl`);
    writeFileSync(file, `${lines.join('\n')}\n\n`);

    const run = await ingest([file], { SEV_URL: service.url, SEV_API_KEY: TEST_KEY });
    expect(run.code, run.stderr).to.equal(1);
    const summary = JSON.parse(run.stdout);
    expect(summary).to.deep.include({ total: 75, done: 75 });
    expect(summary.counts).to.deep.equal({ indexed: 73, replaced: 0, unchanged: 0, duplicate: 0, rejected: 2 });
    expect(summary.errors.map((e: { line: number; field: string | null }) => [e.line, e.field])).to.deep.equal([[10, null], [40, 'title']]);
    expect(run.stderr).to.match(/75\/75 documents .* docs\/s {2}2 errors/);

    const again = await ingest([file], { SEV_URL: service.url, SEV_API_KEY: TEST_KEY });
    expect(JSON.parse(again.stdout).counts).to.include({ indexed: 0, unchanged: 73 });
    rmSync(file);
  });

  it('stops at a refused key, and explains its usage', async () => {
    const file = path.join(os.tmpdir(), `sev-ingest-${randomUUID()}.jsonl`);
    writeFileSync(file, '{"url": "https://example.com/", "title": "t", "content": "c"}\n');
    const refused = await ingest([file], { SEV_URL: service.url, SEV_API_KEY: 'sev_live_wrong' });
    expect(refused.code).to.equal(1);
    expect(JSON.parse(refused.stdout).stopped).to.match(/^INVALID_API_KEY/);

    const usage = await ingest([], { SEV_URL: service.url, SEV_API_KEY: TEST_KEY });
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.match(/^Usage: npm run ingest/);
    rmSync(file);
  });
});
