import { expect } from 'chai';
import { PostingsCache } from '../src/index/postings-cache.js';

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

describe('postings cache', () => {
  it('keeps copies in shared memory, names a segment by id and creation time, and remembers empty lists', () => {
    const cache = new PostingsCache(10_000);
    const row = bytes(1000, 7);
    const kept = cache.set(PostingsCache.key({ id: 1, createdAt: 5 }, 9), [{ block: 0, data: row.subarray(0, 10) }]);
    expect(kept[0]!.data.buffer).to.be.instanceOf(SharedArrayBuffer);
    expect(kept[0]!.data.buffer.byteLength).to.equal(10);
    expect([...cache.get(PostingsCache.key({ id: 1, createdAt: 5 }, 9))![0]!.data]).to.deep.equal(Array(10).fill(7));
    expect(cache.get(PostingsCache.key({ id: 1, createdAt: 6 }, 9)), 'another segment under a reused id').to.equal(undefined);
    cache.set(PostingsCache.key({ id: 2, createdAt: 5 }, 9), []);
    expect(cache.get(PostingsCache.key({ id: 2, createdAt: 5 }, 9))).to.deep.equal([]);
  });

  it('evicts the least recently used lists past its budget, and keeps nothing larger than it', () => {
    const cache = new PostingsCache(3 * (128 + 1000));
    const key = (termId: number) => PostingsCache.key({ id: 1, createdAt: 1 }, termId);
    for (const termId of [1, 2, 3]) cache.set(key(termId), [{ block: 0, data: bytes(1000, termId) }]);
    cache.get(key(1));
    cache.set(key(4), [{ block: 0, data: bytes(1000, 4) }]);
    expect([1, 2, 3, 4].map((t) => cache.get(key(t)) !== undefined)).to.deep.equal([true, false, true, true]);
    expect(cache.size()).to.be.at.most(3 * (128 + 1000));
    const huge = cache.set(key(5), [{ block: 0, data: bytes(5000, 5) }]);
    expect(huge[0]!.data.byteLength).to.equal(5000);
    expect(cache.get(key(5))).to.equal(undefined);
    expect(cache.get(key(4))).to.not.equal(undefined);
  });

  it('keeps packed segments unpacked in shared memory, in at most a quarter of its budget, and remembers a segment that is not packed', () => {
    const cache = new PostingsCache(4 * (3 * 128 + 1000));
    const segment = (id: number) => ({ id, createdAt: 1 });
    const lists = (fill: number) => [{ termId: 3, chunks: [{ block: 0, data: bytes(1000, fill) }] }];
    expect(cache.packed(segment(1))).to.equal(undefined);
    const kept = cache.setPacked(segment(1), lists(1))!;
    expect(kept.get(3)![0]!.data.buffer).to.be.instanceOf(SharedArrayBuffer);
    expect([...cache.packed(segment(1))!.get(3)![0]!.data.subarray(0, 2)]).to.deep.equal([1, 1]);
    expect(cache.packed(segment(1))!.get(4), 'a term the segment does not hold').to.equal(undefined);
    cache.setPacked(segment(2), null);
    expect(cache.packed(segment(2))).to.equal(null);
    // A second packed segment does not fit beside the first in a quarter: the older goes.
    cache.setPacked(segment(3), lists(3));
    expect(cache.packed(segment(1))).to.equal(undefined);
    expect(cache.packed(segment(3))).to.not.equal(undefined);
    expect(cache.size()).to.be.at.most(3 * 128 + 1000 + 128);
    // One larger than the quarter is answered but not kept.
    expect(cache.setPacked(segment(4), [{ termId: 3, chunks: [{ block: 0, data: bytes(2000, 4) }] }])!.get(3)![0]!.data.byteLength).to.equal(2000);
    expect(cache.packed(segment(4))).to.equal(undefined);
  });
});
