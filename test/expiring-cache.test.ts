import { expect } from 'chai';
import { ExpiringCache } from '../src/fetch/expiring-cache.js';

describe('ExpiringCache', () => {
  it('returns values until they expire, then forgets them', () => {
    const cache = new ExpiringCache<string>(10, 100);
    cache.set('a', 'A', 1000, 1);
    expect(cache.get('a', 999)).to.equal('A');
    expect(cache.get('a', 1000)).to.equal(undefined);
    expect(cache.size).to.equal(0);
  });

  it('evicts the least recently used entry beyond the entry limit', () => {
    const cache = new ExpiringCache<string>(2, 100);
    cache.set('a', 'A', Infinity, 1);
    cache.set('b', 'B', Infinity, 1);
    expect(cache.get('a', 0)).to.equal('A');
    cache.set('c', 'C', Infinity, 1);
    expect(cache.get('b', 0)).to.equal(undefined);
    expect(cache.get('a', 0)).to.equal('A');
    expect(cache.get('c', 0)).to.equal('C');
    expect(cache.size).to.equal(2);
  });

  it('evicts old entries until the total weight fits', () => {
    const cache = new ExpiringCache<string>(100, 10);
    cache.set('a', 'A', Infinity, 4);
    cache.set('b', 'B', Infinity, 4);
    cache.set('c', 'C', Infinity, 3);
    expect(cache.get('a', 0)).to.equal(undefined);
    expect(cache.get('b', 0)).to.equal('B');
    cache.set('d', 'D', Infinity, 7);
    expect(cache.get('c', 0)).to.equal(undefined);
    expect(cache.get('b', 0)).to.equal(undefined);
    expect(cache.get('d', 0)).to.equal('D');
  });

  it('replaces a value without counting its old weight', () => {
    const cache = new ExpiringCache<string>(100, 10);
    cache.set('a', 'A', Infinity, 6);
    cache.set('a', 'A2', Infinity, 6);
    cache.set('b', 'B', Infinity, 4);
    expect(cache.get('a', 0)).to.equal('A2');
    expect(cache.get('b', 0)).to.equal('B');
  });
});
