/**
 * `npm run ingest -- FILE.jsonl`: indexes a JSON Lines file, one document per line in the shape
 * of POST /v1/index/documents (url, title, content, content_type, published_date, language,
 * author), through that endpoint: the same validation, conversion and index as the API, against
 * any running deployment. A progress bar goes to stderr; the summary (counts, and every refused
 * document by line number) to stdout as JSON.
 * Settings: SEV_API_KEY (a key with the index scope; its mode decides live or sandbox) and
 * SEV_URL (default http://127.0.0.1:$PORT, PORT defaulting to 8080).
 * Exit codes: 0 every document indexed, 1 some refused or the run stopped, 2 the command line is wrong.
 */
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { countDocuments, IngestClient, readBatches, type LineError } from './ingest-client.js';
import { apiBaseUrl } from './service-client.js';
import { SevError } from '../../clients/typescript/src/index.js';
import { emptyCounts, type IngestCounts } from '../index/ingest.js';
import { ProgressBar } from './progress-bar.js';

const USAGE = `Usage: npm run ingest -- FILE.jsonl

Indexes every line of FILE.jsonl (a JSON document: url, title, content, and optionally
content_type text|markdown|html, published_date, language, author) through POST /v1/index/documents.
Environment: SEV_API_KEY (required, scope index), SEV_URL (default http://127.0.0.1:8080).
`;

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } });
  const file = positionals[0];
  if (values.help || positionals.length !== 1 || !file) {
    process.stderr.write(USAGE);
    return values.help ? 0 : 2;
  }
  const apiKey = process.env.SEV_API_KEY;
  if (!apiKey) {
    process.stderr.write(`SEV_API_KEY is not set.\n\n${USAGE}`);
    return 2;
  }
  if (!existsSync(file)) {
    process.stderr.write(`${file}: no such file\n`);
    return 2;
  }
  const client = new IngestClient(apiBaseUrl(), apiKey);
  const total = await countDocuments(file);
  const bar = new ProgressBar(process.stderr, { name: 'documents', rate: 'docs' });
  const counts: IngestCounts = emptyCounts();
  const errors: LineError[] = [];
  let done = 0;
  let stopped: string | undefined;
  bar.update({ done, total, errors: 0 });
  try {
    for await (const batch of readBatches(file)) {
      const outcome = await client.send(batch);
      for (const [status, n] of Object.entries(outcome.counts) as Array<[keyof IngestCounts, number]>) counts[status] += n;
      errors.push(...outcome.errors);
      done += batch.documents.length + batch.unreadable.length;
      bar.update({ done, total, errors: errors.length });
    }
  } catch (error) {
    stopped = error instanceof SevError ? error.message : String(error);
  }
  bar.update({ done, total, errors: errors.length }, true);
  process.stdout.write(`${JSON.stringify({ total, done, counts, errors, ...(stopped ? { stopped } : {}) }, null, 2)}\n`);
  if (stopped) process.stderr.write(`stopped: ${stopped}\n`);
  return stopped || errors.length > 0 ? 1 : 0;
}

process.exitCode = await main();
