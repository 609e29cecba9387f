import { expect } from 'chai';
import { createCpuPool, TaskTimeoutError, type CpuPool } from '../src/pool/pool.js';

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
    const out = await pool.run('cleanHtml', { ...TASK, html: '<title>T</title><p>Hello pool, a sentence of text.</p>' });
    expect(out.content).to.equal('Hello pool, a sentence of text.');
    expect(out.metadata.title).to.equal('T');
    expect(pool.stats().threads).to.be.within(1, 2);
  });

  it('stops a task past its time limit and keeps serving', async () => {
    // Three million paragraphs (36 MB) take far longer than six seconds to parse and clean.
    const huge = '<p>word </p>'.repeat(3_000_000);
    let caught: unknown;
    try {
      await pool.run('cleanHtml', { ...TASK, html: huge, format: 'markdown' });
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(TaskTimeoutError);
    const out = await pool.run('cleanHtml', { ...TASK, html: '<p>Still here, and still working.</p>' });
    expect(out.content).to.equal('Still here, and still working.');
  });

  it('runs tasks in parallel up to its thread count', async () => {
    const inputs = Array.from({ length: 8 }, (_, i) => ({ ...TASK, html: `<p>This is page number ${i}.</p>` }));
    const outputs = await Promise.all(inputs.map((input) => pool.run('cleanHtml', input)));
    expect(outputs.map((o) => o.content)).to.deep.equal(inputs.map((_, i) => `This is page number ${i}.`));
  });
});
