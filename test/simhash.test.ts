import { expect } from 'chai';
import { hammingDistance, simhashBands } from '../src/text/simhash.js';

describe('simhash bands', () => {
  // Stored in index_documents (sim0..sim3) and compared with rows written by earlier versions:
  // the values must never change. These are those of the first implementation.
  it('are the same bands as ever for the same terms', () => {
    const sentence = 'the quick brown fox jumps over the lazy dog near the river bank'.split(' ');
    expect(simhashBands([])).to.deep.equal([42241, 23988, 45144, 20839]);
    expect(simhashBands(['solo'])).to.deep.equal([47298, 21310, 34516, 57781]);
    expect(simhashBands(['two', 'terms'])).to.deep.equal([10879, 36206, 53594, 3924]);
    expect(simhashBands(sentence)).to.deep.equal([34549, 33498, 38620, 49265]);
    expect(simhashBands(['東京', '都知事', '選挙'])).to.deep.equal([58068, 48739, 63502, 51364]);
  });

  it('stay close for a text with one word changed', () => {
    const words = Array.from({ length: 400 }, (_v, i) => `word${i % 97}x${i % 13}`);
    const changed = [...words];
    changed[200] = 'different';
    expect(hammingDistance(simhashBands(words), simhashBands(changed))).to.be.at.most(3);
  });
});
