import { expect } from 'chai';
import { aggregate, matchShingles, shingles, tokenize } from '../bench/extract/shingle-metric.js';

describe('bench/extract/shingle-metric', () => {
  it('tokenizes \\w+ runs, Unicode letters and digits included, case kept', () => {
    expect(tokenize("L'été, 2019: naïve_user вчера 東京!")).to.deep.equal(['L', 'été', '2019', 'naïve_user', 'вчера', '東京']);
  });

  it('counts 4-token shingles as a multiset; a short text is one shorter shingle, an empty one none', () => {
    expect([...shingles('a b c d a b c d').entries()]).to.deep.equal([
      ['a b c d', 2],
      ['b c d a', 1],
      ['c d a b', 1],
      ['d a b c', 1],
    ]);
    expect([...shingles('only two').entries()]).to.deep.equal([['only two', 1]]);
    expect(shingles('  ...  ').size).to.equal(0);
  });

  it('matches a tiny hand-computed example', () => {
    // expected: "a b c d e" → {abcd, bcde}; predicted: "a b c d x" → {abcd, bcdx}
    // tp = 1 (abcd), fp = 1 (bcdx), fn = 1 (bcde); normalised by 3.
    const counts = matchShingles('a b c d e', 'a b c d x');
    expect(counts.tp).to.be.closeTo(1 / 3, 1e-12);
    expect(counts.fp).to.be.closeTo(1 / 3, 1e-12);
    expect(counts.fn).to.be.closeTo(1 / 3, 1e-12);
    // page 1: P = R = 1/2; page 2 (perfect): P = R = 1; page 3 (nothing predicted): only recall, 0.
    const scores = aggregate([counts, matchShingles('p q r s', 'p q r s'), matchShingles('p q r s', '')]);
    expect(scores.precision).to.be.closeTo((0.5 + 1) / 2, 1e-12);
    expect(scores.recall).to.be.closeTo((0.5 + 1 + 0) / 3, 1e-12);
    expect(scores.f1).to.be.closeTo((2 * 0.75 * 0.5) / 1.25, 1e-12);
  });
});
