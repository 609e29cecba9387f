import { expect } from 'chai';
import { generateKey, keyHint, parseKey, randomId } from '../src/auth/key-format.js';

describe('key format', () => {
  it('makes sev_<kind>_ keys of 49 base62 characters that parse back to their kind', () => {
    for (const kind of ['live', 'test', 'master'] as const) {
      const key = generateKey(kind);
      expect(key).to.match(new RegExp(`^sev_${kind}_[0-9A-Za-z]{49}$`));
      expect(parseKey(key)).to.equal(kind);
    }
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateKey('live')));
    expect(keys.size).to.equal(2000);
  });

  it('rejects a changed character, a swapped kind, truncation and foreign formats by checksum', () => {
    const key = generateKey('live');
    const body = key.slice('sev_live_'.length);
    const changed = `sev_live_${body[0] === 'A' ? 'B' : 'A'}${body.slice(1)}`;
    expect(parseKey(changed)).to.equal(undefined);
    expect(parseKey(`sev_test_${body}`)).to.equal(undefined);
    expect(parseKey(key.slice(0, -1))).to.equal(undefined);
    expect(parseKey(`${key}x`)).to.equal(undefined);
    expect(parseKey('sk_live_0123456789')).to.equal(undefined);
    expect(parseKey('')).to.equal(undefined);
  });

  it('shows a hint with the kind and the last four characters only', () => {
    const key = generateKey('test');
    expect(keyHint(key)).to.equal(`sev_test_…${key.slice(-4)}`);
  });

  it('makes prefixed record ids', () => {
    expect(randomId('key')).to.match(/^key_[0-9A-Za-z]{17}$/);
    expect(randomId('acct')).to.not.equal(randomId('acct'));
  });
});
