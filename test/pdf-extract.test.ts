import { expect } from 'chai';
import type { CleanHtmlOutput } from '../src/html/clean-html.js';
import type { JsonBlock } from '../src/html/render/json.js';
import { extractPdf, NO_TEXT_LAYER, type ExtractPdfInput, type UnreadablePdf } from '../src/pdf/extract-pdf.js';
import { pdfDate } from '../src/pdf/pdf-metadata.js';
import { createCpuPool, TaskTimeoutError, type CpuPool } from '../src/pool/pool.js';
import { prng } from './helpers/prng.js';
import {
  brokenPdf, CHINESE, chinesePdf, encryptedPdf, GREEK, greekPdf, longPdf, PROSE, reportPdf, RUSSIAN, russianPdf, scannedPdf, TABLE, tablePdf, TWO_COLUMN_TITLE, twoColumnPdf,
} from './helpers/pdf-samples.js';

const OPTIONS = { format: 'markdown', clean: true, preserveFormatting: false, pageMarkers: false, maxPages: 500 } as const;

async function read(data: Buffer, options: Partial<Omit<ExtractPdfInput, 'data'>> = {}): Promise<CleanHtmlOutput> {
  const out = await extractPdf({ ...OPTIONS, ...options, data });
  if ('failed' in out) throw new Error(out.failed);
  return out;
}

async function failure(data: Buffer, options: Partial<Omit<ExtractPdfInput, 'data'>> = {}): Promise<string> {
  const out = await extractPdf({ ...OPTIONS, ...options, data });
  expect(out).to.have.property('failed');
  return (out as UnreadablePdf).failed;
}

/** Where each of `parts` starts in `text`, which must hold them all in this order. */
function expectInOrder(text: string, parts: string[]): void {
  let from = 0;
  for (const part of parts) {
    const at = text.indexOf(part, from);
    expect(at, `"${part}" after position ${from} in:\n${text}`).to.be.greaterThan(-1);
    from = at + part.length;
  }
}

describe('PDF extraction', function () {
  // The first PDF a thread reads loads pdf.js.
  this.timeout(20_000);

  describe('one column', () => {
    it('rebuilds headings from the type sizes and paragraphs from the spacing, in reading order', async () => {
      const out = await read(reportPdf(), { format: 'json' });
      const blocks = out.content as JsonBlock[];
      expect(blocks.map((b) => b.type)).to.deep.equal(['heading', 'paragraph', 'heading', 'paragraph', 'heading', 'paragraph', 'heading', 'paragraph', 'paragraph']);
      const headings = blocks.filter((b): b is Extract<JsonBlock, { type: 'heading' }> => b.type === 'heading').map((b) => [b.level, b.text]);
      expect(headings).to.deep.equal([[1, 'Sediment in Three Rivers'], [2, 'Method'], [3, 'Gauges and logs'], [2, 'Results']]);
      const paragraphs = blocks.filter((b): b is Extract<JsonBlock, { type: 'paragraph' }> => b.type === 'paragraph').map((b) => b.text);
      expect(paragraphs[0]).to.equal(PROSE.intro);
      expect(paragraphs[1]).to.equal(PROSE.method);
      expect(paragraphs[3]).to.equal(PROSE.results);
      expect(paragraphs[4]).to.equal(PROSE.closing);
    });

    it('leaves out running footers and page numbers, and keeps them with clean: false', async () => {
      expect((await read(reportPdf(), { format: 'text' })).text).to.not.include('draft');
      const whole = await read(reportPdf(), { format: 'text', clean: false });
      expect(whole.text).to.include('Sediment report - draft');
    });

    it('reads the metadata: title, author, description, dates with their offsets, page count and language', async () => {
      const { metadata, quality } = await read(reportPdf());
      expect(metadata).to.include({
        title: 'Sediment in Three Rivers', author: 'Ada Hydrographer', description: 'River sediment',
        publishedDate: '2024-03-01T09:30:00+01:00', modifiedDate: '2024-04-15T12:00:00Z', pageCount: 2, language: 'en',
      });
      expect(metadata.wordCount).to.be.within(100, 200);
      expect(quality).to.be.within(0.5, 1);
    });

    it('renders every format from one model, with page markers when asked', async () => {
      const pdf = reportPdf();
      const markdown = (await read(pdf, { format: 'markdown' })).content as string;
      expect(markdown.startsWith('# Sediment in Three Rivers\n\nRivers carry sediment')).to.equal(true);
      expect(markdown).to.include('\n\n## Method\n\n').and.include('\n\n### Gauges and logs\n\n');
      expect(markdown).to.not.include('<!-- page');
      const marked = (await read(pdf, { format: 'markdown', pageMarkers: true })).content as string;
      expect(marked.startsWith('<!-- page 1 -->\n\n# Sediment')).to.equal(true);
      expectInOrder(marked, ['<!-- page 1 -->', 'Gauges and logs', '<!-- page 2 -->', '## Results']);
      const html = (await read(pdf, { format: 'html', pageMarkers: true })).content as string;
      expectInOrder(html, ['<hr data-page="1">', '<h1>Sediment in Three Rivers</h1>', '<p>Rivers carry', '<hr data-page="2">', '<h2>Results</h2>']);
      const text = (await read(pdf, { format: 'text', pageMarkers: true })).content as string;
      expectInOrder(text, ['--- page 1 ---\n\nSediment in Three Rivers\n\nRivers carry', '--- page 2 ---\n\nResults']);
      const json = (await read(pdf, { format: 'json', pageMarkers: true })).content as JsonBlock[];
      expect(json[0]).to.deep.equal({ type: 'page', number: 1 });
      expect(json.filter((b) => b.type === 'page')).to.deep.equal([{ type: 'page', number: 1 }, { type: 'page', number: 2 }]);
    });

    it('keeps the page markers in the stored model but never in the text', async () => {
      const out = await read(reportPdf(), { pageMarkers: true });
      expect(out.blocks.filter((b) => b.type === 'page')).to.have.length(2);
      expect(out.text).to.not.include('page 1');
    });

    it('joins the lines a paragraph wrapped into, with preserve_formatting too', async () => {
      const out = await read(reportPdf(), { format: 'text', preserveFormatting: true });
      expect((out.content as string).split('\n\n')[1]).to.equal(PROSE.intro);
    });
  });

  describe('two columns', () => {
    it('reads the title, then the left column, then the right one', async () => {
      const out = await read(twoColumnPdf(), { format: 'json' });
      const blocks = out.content as JsonBlock[];
      expect(blocks).to.deep.equal([
        { type: 'heading', level: 1, text: TWO_COLUMN_TITLE },
        { type: 'paragraph', text: PROSE.left1 },
        { type: 'paragraph', text: PROSE.left2 },
        { type: 'paragraph', text: PROSE.right1 },
        { type: 'paragraph', text: PROSE.right2 },
      ]);
      expect(out.metadata.title).to.equal(TWO_COLUMN_TITLE);
    });
  });

  describe('tables', () => {
    it('keeps a table as rows of cells, its bold first row as the header', async () => {
      const json = (await read(tablePdf(), { format: 'json' })).content as JsonBlock[];
      expect(json.map((b) => b.type)).to.deep.equal(['paragraph', 'table', 'paragraph']);
      expect(json[1]).to.deep.equal({ type: 'table', header: TABLE.header, rows: TABLE.rows });
      const markdown = (await read(tablePdf(), { format: 'markdown' })).content as string;
      expect(markdown).to.include([
        '| Station | River | Tonnes |',
        '| --- | --- | --- |',
        '| Kell Bridge | Northern | 1200 |',
        '| Marrow Ford | Southern | 860 |',
        '| Ashby Weir | Eastern | 430 |',
      ].join('\n'));
      const text = (await read(tablePdf(), { format: 'text' })).content as string;
      expect(text).to.include('Station | River | Tonnes\nKell Bridge | Northern | 1200');
    });
  });

  describe('other scripts', () => {
    it('reads Cyrillic text, its headings and author, and tells the language from the text', async () => {
      const out = await read(russianPdf(), { format: 'json' });
      expect(out.content).to.deep.equal([
        { type: 'heading', level: 1, text: RUSSIAN.title },
        { type: 'paragraph', text: RUSSIAN.body },
        { type: 'heading', level: 2, text: RUSSIAN.heading },
        { type: 'paragraph', text: RUSSIAN.more },
      ]);
      expect(out.metadata).to.include({ title: RUSSIAN.title, author: 'Иван Петров', language: 'ru' });
    });

    it('reads Chinese set through a predefined CMap, lines joined without spaces', async () => {
      const out = await read(chinesePdf(), { format: 'json' });
      expect(out.content).to.deep.equal([{ type: 'heading', level: 1, text: CHINESE.title }, { type: 'paragraph', text: CHINESE.body }]);
      expect(out.metadata.language).to.equal('zh');
    });

    it('reads Greek, as Greek', async () => {
      const out = await read(greekPdf(), { format: 'text' });
      expect(out.content).to.equal(GREEK);
      expect(out.metadata.language).to.equal('el');
    });
  });

  describe('PDFs that cannot be read', () => {
    it('refuses an encrypted PDF that needs a password', async () => {
      expect(await failure(encryptedPdf('secret'))).to.equal('PDF is encrypted: it needs a password to open');
    });

    it('reads a PDF encrypted with an owner password only, as every reader does', async () => {
      const out = await read(encryptedPdf(''), { format: 'text' });
      expect(out.content).to.equal(PROSE.intro);
      expect(out.metadata.title).to.equal('Locked report');
    });

    it('refuses a PDF of pictures only: no text layer', async () => {
      expect(await failure(scannedPdf())).to.equal(NO_TEXT_LAYER);
      expect(NO_TEXT_LAYER).to.include('no text layer');
    });

    it('refuses a broken PDF, saying so', async () => {
      expect(await failure(brokenPdf())).to.match(/^PDF is broken: /);
      expect(await failure(reportPdf().subarray(0, 200))).to.match(/^PDF is broken: |^PDF has no text layer/);
    });

    it('answers content or a reason for every corruption of a PDF, never an exception', async function () {
      this.timeout(60_000);
      const bases = [reportPdf(), tablePdf(), twoColumnPdf()];
      const outcomes = new Set<string>();
      for (let seed = 1; seed <= 60; seed++) {
        const random = prng(seed);
        const data = Buffer.from(bases[seed % bases.length]!);
        for (let edits = 1 + Math.floor(random() * 20); edits > 0; edits--) data[Math.floor(random() * data.length)] = Math.floor(random() * 256);
        const input = random() < 0.2 ? data.subarray(0, Math.floor(random() * data.length)) : data;
        const out = await extractPdf({ ...OPTIONS, data: input });
        if ('failed' in out) {
          expect(out.failed, `seed ${seed}`).to.match(/^PDF (is broken|is encrypted|has no text layer|too long)/);
          outcomes.add(out.failed.split(':')[0]!);
        } else {
          expect(out.blocks.length, `seed ${seed}`).to.be.greaterThan(0);
          outcomes.add('read');
        }
      }
      // Most corruptions leave the text readable; the rest are broken.
      expect([...outcomes]).to.include.members(['read', 'PDF is broken']);
    });

    it('refuses a PDF of more pages than it may read, before reading them', async () => {
      expect(await failure(longPdf(4), { maxPages: 3 })).to.equal('PDF too long: 4 pages, more than the 3 read');
      expect((await read(longPdf(3), { maxPages: 3 })).metadata.pageCount).to.equal(3);
    });
  });

  describe('dates', () => {
    it('reads PDF dates in their forms, keeping the offset', () => {
      expect(pdfDate("D:20240102030405+05'30'")).to.equal('2024-01-02T03:04:05+05:30');
      expect(pdfDate("D:20240102030405-08'00")).to.equal('2024-01-02T03:04:05-08:00');
      expect(pdfDate('D:20240102030405Z')).to.equal('2024-01-02T03:04:05Z');
      expect(pdfDate("D:20240102030405Z00'00'")).to.equal('2024-01-02T03:04:05Z');
      expect(pdfDate('D:202401021304')).to.equal('2024-01-02T13:04:00');
      expect(pdfDate('D:20240102')).to.equal('2024-01-02');
      expect(pdfDate('D:2024')).to.equal('2024-01-01');
      expect(pdfDate('yesterday')).to.equal(null);
      expect(pdfDate('D:20241340')).to.equal(null);
    });
  });

  describe('in the pool', () => {
    let pool: CpuPool;
    before(() => {
      pool = createCpuPool({ threads: 1, taskTimeoutMs: 10_000 });
    });
    after(() => pool.close());

    it('runs as the extractPdf task, the bytes crossing to the thread', async () => {
      const out = await pool.run('extractPdf', { ...OPTIONS, data: tablePdf(), format: 'text' });
      expect(out).to.not.have.property('failed');
      expect((out as CleanHtmlOutput).text).to.include('Kell Bridge | Northern | 1200');
      expect(await pool.run('extractPdf', { ...OPTIONS, data: scannedPdf() })).to.deep.equal({ failed: NO_TEXT_LAYER });
    });

    it('stops a PDF at the time limit given for it, and keeps serving', async () => {
      let caught: unknown;
      try {
        await pool.run('extractPdf', { ...OPTIONS, data: longPdf(300) }, { timeoutMs: 200 });
      } catch (error) {
        caught = error;
      }
      expect(caught).to.be.instanceOf(TaskTimeoutError);
      expect((caught as TaskTimeoutError).timeoutMs).to.equal(200);
      const out = await pool.run('extractPdf', { ...OPTIONS, data: greekPdf(), format: 'text' });
      expect((out as CleanHtmlOutput).content).to.equal(GREEK);
    });
  });
});
