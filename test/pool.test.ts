import { expect } from 'chai';
import { createCpuPool, TaskTimeoutError, type CpuPool } from '../src/pool/pool.js';
import type { CleanHtmlOutput, TooComplexPage } from '../src/html/clean-html.js';

/** The cleaned page of a task the test expects to be within the DOM's limits. */
function cleaned(out: CleanHtmlOutput | TooComplexPage): CleanHtmlOutput {
  if ('tooComplex' in out) throw new Error(out.tooComplex);
  return out;
}

const TASK = { url: 'http://x.test/', kind: 'html', format: 'text', clean: true, preserveFormatting: false } as const;

describe('CPU pool', () => {
  let pool: CpuPool;
  before(() => {
    // Long enough for a replacement thread to start and load its modules on a busy machine, far
    // shorter than the huge task.
    pool = createCpuPool({ threads: 2, taskTimeoutMs: 6000 });
  });
  after(() => pool.close());

  it('runs the cleaning task on a worker thread', async () => {
    const out = cleaned(await pool.run('cleanHtml', { ...TASK, html: '<title>T</title><p>Hello pool, a sentence of text.</p>' }));
    expect(out.content).to.equal('Hello pool, a sentence of text.');
    expect(out.metadata.title).to.equal('T');
    expect(pool.stats().threads).to.be.within(1, 2);
  });

  it('stops a task past its time limit and keeps serving', async () => {
    // 60,000 sentences that each say something else: the summary compares every candidate with
    // every one it took, minutes of work in little memory. (A page big enough to take as long to
    // clean came near the thread's 1 GB heap, and on a fast machine ran out of memory first.)
    const word = (i: number) => `w${i.toString(36).replace(/\d/g, (d) => 'abcdefghij'[Number(d)]!)}`;
    const sentences = Array.from({ length: 60_000 }, (_, i) => `Alpha ${word(4 * i)} ${word(4 * i + 1)} ${word(4 * i + 2)} ${word(4 * i + 3)}.`);
    let caught: unknown;
    try {
      await pool.run('extractiveSummary', { query: 'alpha', language: 'en', sources: [{ n: 1, passages: [sentences.join(' ')] }], maxSentences: sentences.length });
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(TaskTimeoutError);
    const out = cleaned(await pool.run('cleanHtml', { ...TASK, html: '<p>Still here, and still working.</p>' }));
    expect(out.content).to.equal('Still here, and still working.');
  });

  it('runs tasks in parallel up to its thread count', async () => {
    const inputs = Array.from({ length: 8 }, (_, i) => ({ ...TASK, html: `<p>This is page number ${i}.</p>` }));
    const outputs = await Promise.all(inputs.map((input) => pool.run('cleanHtml', input)));
    expect(outputs.map((o) => cleaned(o).content)).to.deep.equal(inputs.map((_, i) => `This is page number ${i}.`));
  });
});
