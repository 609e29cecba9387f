import { CHAR_WIDTH, writePdf, type PdfPage, type PdfText } from './pdf-writer.js';

/**
 * The PDFs the PDF tests and the PDF benchmark read, generated (test/helpers/pdf-writer.ts): their
 * text, order, headings and tables are known because they are made here.
 */

/** Lines of `text` wrapped to `width` points at `size` (every character 0.5 em wide). */
export function wrap(text: string, width: number, size: number): string[] {
  const perLine = Math.floor(width / (CHAR_WIDTH * size));
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && (line + ' ' + word).length > perLine) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** Sets text down a column, top to bottom: headings and paragraphs with the spacing a word processor uses. */
export class Column {
  readonly texts: PdfText[] = [];

  constructor(private readonly x: number, private readonly width: number, public y: number, private readonly size = 11) {}

  heading(text: string, size: number, bold = true): this {
    this.y += size * 0.6;
    for (const line of wrap(text, this.width, size)) {
      this.y += size * 1.2;
      this.texts.push({ text: line, x: this.x, y: this.y, size, bold });
    }
    this.y += size * 0.3;
    return this;
  }

  paragraph(text: string, options: { bold?: boolean; indent?: number } = {}): this {
    const lines = wrap(text, this.width, this.size);
    lines.forEach((line, i) => {
      this.y += this.size * 1.3;
      this.texts.push({ text: line, x: this.x + (i === 0 ? options.indent ?? 0 : 0), y: this.y, size: this.size, ...(options.bold ? { bold: true } : {}) });
    });
    this.y += this.size * 0.8;
    return this;
  }
}

export const PROSE = {
  intro: 'Rivers carry sediment from the mountains to the sea, and the shape of a delta records how much they carried and for how long. This report follows three rivers through a century of measurements.',
  method: 'Every gauge was read twice a day. Readings that disagreed by more than five percent were checked against the station log, and the log was believed when the two could not be reconciled.',
  results: 'The northern river carried the most sediment in wet years but the least in dry ones. Its delta grew in pulses, while the delta of the southern river grew at an even pace through the whole record.',
  closing: 'Measurements of this kind are slow to gather and easy to lose. The stations that kept their logs are the reason this report could be written at all.',
  left1: 'Alpha paragraph opens the left column. It talks about the first topic at some length so that it wraps over several lines of the narrow column.',
  left2: 'Second left paragraph goes on with the first topic and closes it, still inside the left column, before the reader moves across.',
  right1: 'Beta paragraph opens the right column. It is read only after the whole left column, although its lines sit level with the lines on the left.',
  right2: 'Last right paragraph ends the page and the article, and nothing follows it on this page.',
};

/** Two A4 pages of one column: a title, section headings, paragraphs, a running footer and page numbers. */
export function reportPdf(): Buffer {
  const first = new Column(72, 451, 60)
    .heading('Sediment in Three Rivers', 22)
    .paragraph(PROSE.intro)
    .heading('Method', 15)
    .paragraph(PROSE.method)
    .heading('Gauges and logs', 13);
  first.paragraph(PROSE.method.replace('twice a day', 'at dawn and at dusk'));
  const second = new Column(72, 451, 60)
    .heading('Results', 15)
    .paragraph(PROSE.results)
    .paragraph(PROSE.closing);
  const footer = (n: number): PdfText[] => [
    { text: 'Sediment report - draft', x: 72, y: 810, size: 8 },
    { text: String(n), x: 520, y: 810, size: 8 },
  ];
  return writePdf({
    pages: [{ texts: [...first.texts, ...footer(1)] }, { texts: [...second.texts, ...footer(2)] }],
    info: { Title: 'Sediment in Three Rivers', Author: 'Ada Hydrographer', Subject: 'River sediment', CreationDate: "D:20240301093000+01'00'", ModDate: "D:20240415120000Z" },
    lang: 'en-GB',
  });
}

export const TWO_COLUMN_TITLE = 'Columns Side by Side: a Test of Reading Order';

/** A title across both columns over two columns whose lines sit level with each other. */
export function twoColumnPdf(): Buffer {
  const title = new Column(60, 475, 50).heading(TWO_COLUMN_TITLE, 20);
  const left = new Column(60, 225, title.y).paragraph(PROSE.left1).paragraph(PROSE.left2);
  const right = new Column(310, 225, title.y).paragraph(PROSE.right1).paragraph(PROSE.right2);
  return writePdf({ pages: [{ texts: [...title.texts, ...left.texts, ...right.texts] }] });
}

export const TABLE = {
  header: ['Station', 'River', 'Tonnes'],
  rows: [['Kell Bridge', 'Northern', '1200'], ['Marrow Ford', 'Southern', '860'], ['Ashby Weir', 'Eastern', '430']],
};

/** A paragraph, a table with a bold header row, a paragraph. */
export function tablePdf(): Buffer {
  const column = new Column(72, 451, 60).paragraph('The stations measured these loads in the last year of the record.');
  const xs = [72, 220, 360];
  const rows = [TABLE.header, ...TABLE.rows];
  const texts: PdfText[] = [...column.texts];
  let y = column.y + 8;
  rows.forEach((cells, r) => {
    y += 18;
    cells.forEach((cell, c) => texts.push({ text: cell, x: xs[c]!, y, size: 11, ...(r === 0 ? { bold: true } : {}) }));
  });
  const after = new Column(72, 451, y + 10).paragraph('Loads fell from north to south, as the gauges had shown in every earlier year.');
  return writePdf({ pages: [{ texts: [...texts, ...after.texts] }] });
}

export const RUSSIAN = {
  title: 'Реки и их дельты',
  heading: 'Наблюдения',
  body: 'Реки несут песок и ил с гор к морю, и форма дельты показывает, сколько они несли и как долго. Наблюдения велись каждый день в течение многих лет.',
  more: 'Северная река несла больше всего осадков во влажные годы, а южная река росла ровно и спокойно.',
};

/** Cyrillic text: a title, a heading and paragraphs, no declared language. */
export function russianPdf(): Buffer {
  const column = new Column(72, 451, 60).heading(RUSSIAN.title, 20).paragraph(RUSSIAN.body).heading(RUSSIAN.heading, 14).paragraph(RUSSIAN.more);
  return writePdf({ pages: [{ texts: column.texts }], info: { Author: 'Иван Петров' } });
}

export const CHINESE = {
  title: '河流与三角洲',
  body: '河流把泥沙从山上带到海里，三角洲的形状记录了它们带来了多少泥沙以及带了多久。本报告跟踪三条河流一个世纪的测量数据。',
};

/** Chinese in a font that is not embedded, whose codes only Adobe's CMaps resolve; lines of 20 characters. */
export function chinesePdf(): Buffer {
  const texts: PdfText[] = [{ text: CHINESE.title, x: 72, y: 90, size: 20, chinese: true }];
  for (let i = 0, y = 130; i < CHINESE.body.length; i += 20, y += 16) texts.push({ text: CHINESE.body.slice(i, i + 20), x: 72, y, size: 12, chinese: true });
  return writePdf({ pages: [{ texts }] });
}

export const GREEK = 'Τα ποτάμια μεταφέρουν άμμο από τα βουνά στη θάλασσα, και το σχήμα του δέλτα δείχνει πόση μετέφεραν.';

export function greekPdf(): Buffer {
  return writePdf({ pages: [{ texts: new Column(72, 451, 60).paragraph(GREEK).texts }] });
}

/** One page of text under an owner password only, or needing the user password `secret`. */
export function encryptedPdf(userPassword: string): Buffer {
  return writePdf({
    pages: [{ texts: new Column(72, 451, 60).paragraph(PROSE.intro).texts }],
    info: { Title: 'Locked report' },
    encryption: { userPassword, ownerPassword: 'owner-secret' },
  });
}

/** Pages that are pictures only, as a scanner makes them. */
export function scannedPdf(): Buffer {
  return writePdf({ pages: [{ image: true }, { image: true }] });
}

/** The PDF signature over bytes that are no PDF. */
export function brokenPdf(): Buffer {
  return Buffer.concat([Buffer.from('%PDF-1.7\n', 'latin1'), Buffer.from(Array.from({ length: 2000 }, (_, i) => (i * 7919) % 251))]);
}

/** `pages` pages of a few paragraphs each: the benchmark's document. */
export function longPdf(pages: number): Buffer {
  const spec: PdfPage[] = [];
  for (let n = 1; n <= pages; n++) {
    const column = new Column(72, 451, 60).heading(`Section ${n}`, 15);
    for (const text of [PROSE.intro, PROSE.method, PROSE.results, PROSE.closing, PROSE.intro, PROSE.method]) column.paragraph(text);
    spec.push({ texts: column.texts });
  }
  return writePdf({ pages: spec, info: { Title: 'Long report' } });
}
