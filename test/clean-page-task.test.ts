import { expect } from 'chai';
import type { Mode } from '../src/mode.js';
import { cleanHtml } from '../src/html/clean-html.js';
import { MysqlDocumentIndex } from '../src/index/mysql-document-index.js';
import { prepareDocuments } from '../src/index/prepare-documents.js';
import { cleanPageTask } from '../src/page/clean-page-task.js';
import { decodeBody } from '../src/page/decode-body.js';
import { createCpuPool, type CpuPool } from '../src/pool/pool.js';
import { openStorage, type Storage } from '../src/storage/connection.js';
import { migrateToLatest } from '../src/storage/migrate.js';

const PAGE = `<html lang="en"><head><title>Tides and the moon</title></head><body><article>
<h1>Tides and the moon</h1>
<p>Ocean tides rise and fall twice a day because the moon pulls on the water facing it and, less obviously, on the far side of the planet.</p>
<p>The sun adds its own pull: when both line up, at new and full moon, the spring tides reach their highest and lowest marks.</p>
</article></body></html>`;
const INPUT = { html: PAGE, url: 'https://tides.example/moon', kind: 'html', format: 'markdown', clean: true, preserveFormatting: false } as const;

describe('the page cleaning pool task', () => {
  it('decodes the bytes of a page in the charset it declares, then cleans it as cleanHtml does', () => {
    // windows-1252: 0x80 is the euro sign and 0x97 the em dash, which latin1 would make control characters.
    const bytes = Uint8Array.from(Buffer.from('<html><head><meta charset="windows-1252"><title>Caf\xe9</title></head><body><article>'
      + '<p>Un caf\xe9 cr\xe8me co\xfbte \x803 \x97 \xab tr\xe8s cher \xbb, disent les habitu\xe9s du quartier depuis des ann\xe9es.</p></article></body></html>', 'latin1'));
    const { html: _html, ...options } = INPUT;
    const fromBytes = cleanPageTask({ ...options, body: bytes });
    const fromText = cleanHtml({ ...INPUT, html: decodeBody(bytes, undefined) });
    expect(fromBytes).to.deep.equal(fromText);
    expect(fromText.text).to.include('\u20ac3 \u2014 \u00ab tr\u00e8s cher \u00bb');
    // The Content-Type charset, when the server sent one, comes first.
    expect(cleanPageTask({ ...options, body: Uint8Array.from(Buffer.from(PAGE, 'utf16le')), charset: 'utf-16le' })).to.deep.equal(cleanHtml(INPUT));
  });

  it("with prepareForIndex: the blocks as JSON, and the page's title, text and language analysed as prepareDocuments does", () => {
    const both = cleanPageTask({ ...INPUT, prepareForIndex: true });
    if (!('prepared' in both)) throw new Error('not prepared');
    const cleaned = cleanHtml(INPUT);
    const { prepared, blocksJson, ...rest } = both;
    const { blocks, ...cleanedRest } = cleaned;
    expect(rest).to.deep.equal(cleanedRest);
    expect(blocksJson).to.equal(JSON.stringify(blocks));
    expect(prepared).to.deep.equal(prepareDocuments({ documents: [{ title: cleaned.metadata.title, text: cleaned.text, language: cleaned.metadata.language }] })[0]);
    expect(cleanPageTask(INPUT)).to.deep.equal(cleaned);
  });

  it('answers a page past the DOM limits as data, as cleanHtml does in the pool', () => {
    const deep = `${'<div>'.repeat(50)}text${'</div>'.repeat(50)}`;
    expect(cleanPageTask({ ...INPUT, html: deep, limits: { maxNodes: 1_000_000, maxDepth: 10 }, prepareForIndex: true })).to.have.property('tooComplex');
  });
});

describe('the index with documents analysed by their caller', function () {
  this.timeout(60_000);
  const DATABASE_URL = process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';
  const mode = `p${Math.random().toString(36).slice(2, 8)}` as Mode;
  let storage: Storage;
  let pool: CpuPool;
  let analysed: number;
  let index: MysqlDocumentIndex;

  before(async () => {
    storage = openStorage(DATABASE_URL, 2);
    await migrateToLatest(storage.db);
    pool = createCpuPool({ threads: 1, taskTimeoutMs: 30_000 });
    analysed = 0;
    const counting: CpuPool = { ...pool, run: (task, input, options) => {
      if (task === 'prepareDocuments') analysed += (input as { documents: unknown[] }).documents.length;
      return pool.run(task, input, options);
    } };
    index = new MysqlDocumentIndex(storage.db, counting);
  });
  after(async () => {
    await index.deleteByDomain(mode, 'example');
    await storage.db.deleteFrom('index_terms').where('mode', '=', mode).execute();
    await storage.db.deleteFrom('index_stats').where('mode', '=', mode).execute();
    await index.close();
    await pool.close();
    await storage.close();
  });

  it('writes the given analysis without analysing again, and analyses only the documents that come without one', async () => {
    const cleaned = cleanPageTask({ ...INPUT, prepareForIndex: true });
    if (!('prepared' in cleaned)) throw new Error('not prepared');
    const base = { title: cleaned.metadata.title, language: cleaned.metadata.language, author: null, publishedAt: null, fetchedAt: new Date(), countryHint: null, authority: null };
    const outcomes = await index.indexDocuments(mode, [
      { ...base, url: 'https://tides.example/moon', text: cleaned.text, prepared: cleaned.prepared },
      { ...base, url: 'https://tides.example/sun', title: 'The sun', text: 'The sun raises tides too, a little less than half as much as the moon.' },
    ]);
    expect(outcomes.map((o) => o.status)).to.deep.equal(['indexed', 'indexed']);
    expect(outcomes[0]!.passages).to.equal(cleaned.prepared.passages.length);
    expect(analysed).to.equal(1);
    const hits = await index.retrieve(mode, 'spring tides', { limit: 5 });
    expect(hits.map((h) => h.url)).to.include('https://tides.example/moon');
  });
});
