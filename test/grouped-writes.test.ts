import { expect } from 'chai';
import { GroupedWrites } from '../src/index/grouped-writes.js';

/** A write the test finishes by hand, and every group it was handed. */
function manualWriter(fail: (documents: readonly number[]) => boolean = () => false) {
  const groups: number[][] = [];
  const finish: Array<() => void> = [];
  const writes = new GroupedWrites<number, string>((_mode, documents) => {
    groups.push([...documents]);
    return new Promise((resolve, reject) => finish.push(() => (fail(documents) ? reject(new Error(`bad ${documents.join(',')}`)) : resolve(documents.map((d) => `done ${d}`)))));
  }, 4);
  const next = async () => {
    while (finish.length === 0) await new Promise((resolve) => setImmediate(resolve));
    finish.shift()!();
  };
  return { writes, groups, next };
}

describe('Grouped index writes', () => {
  it('writes what arrives during a write together in the next, and answers each caller with its own outcomes', async () => {
    const { writes, groups, next } = manualWriter();
    const first = writes.add('live', [1]);
    const second = writes.add('live', [2, 3]);
    const third = writes.add('live', [4]);
    await next();
    expect(await first).to.deep.equal(['done 1']);
    await next();
    expect(await second).to.deep.equal(['done 2', 'done 3']);
    expect(await third).to.deep.equal(['done 4']);
    expect(groups).to.deep.equal([[1], [2, 3, 4]]);
  });

  it('keeps a group within its size, and modes apart', async () => {
    const { writes, groups, next } = manualWriter();
    const all = [writes.add('live', [1]), writes.add('live', [2, 3, 4]), writes.add('live', [5, 6]), writes.add('test', [7])];
    for (let i = 0; i < 4; i++) await next();
    await Promise.all(all);
    expect(groups).to.deep.equal([[1], [7], [2, 3, 4], [5, 6]]);
  });

  it('writes each caller alone when a group fails, so only the caller at fault sees the error', async () => {
    const { writes, groups, next } = manualWriter((documents) => documents.includes(3));
    const first = writes.add('live', [1]);
    const good = writes.add('live', [2]);
    const bad = writes.add('live', [3]);
    for (let i = 0; i < 4; i++) await next();
    await first;
    expect(await good).to.deep.equal(['done 2']);
    const error = await bad.then(() => null, (e: Error) => e);
    expect(error?.message).to.equal('bad 3');
    expect(groups).to.deep.equal([[1], [2, 3], [2], [3]]);
  });
});
