import { expect } from 'chai';
import { resolveClientAddress } from '../src/http/client-address.js';
import { inRanges, normaliseIp, parseRanges } from '../src/net/ip-ranges.js';

describe('client-address', () => {
  describe('normaliseIp', () => {
    it('turns an IPv4-mapped IPv6 address into plain IPv4', () => {
      expect(normaliseIp('::ffff:192.0.2.7')).to.equal('192.0.2.7');
      expect(normaliseIp('::FFFF:192.0.2.7')).to.equal('192.0.2.7');
      expect(normaliseIp('::ffff:c000:207')).to.equal('192.0.2.7');
    });

    it('writes IPv6 in its compressed lower-case form', () => {
      expect(normaliseIp('2001:DB8:0:0:0:0:0:1')).to.equal('2001:db8::1');
      expect(normaliseIp('0:0:0:0:0:0:0:1')).to.equal('::1');
    });

    it('leaves plain IPv4 alone and returns unparseable input unchanged', () => {
      expect(normaliseIp('203.0.113.9')).to.equal('203.0.113.9');
      expect(normaliseIp('unknown')).to.equal('unknown');
    });
  });

  describe('parseRanges and inRanges', () => {
    it('treats a bare IPv4 address as a /32', () => {
      const ranges = parseRanges(['10.0.0.1']);
      expect(inRanges('10.0.0.1', ranges)).to.equal(true);
      expect(inRanges('10.0.0.2', ranges)).to.equal(false);
    });

    it('matches IPv4 CIDR ranges at their edges', () => {
      const ranges = parseRanges(['10.0.0.0/8', '192.168.1.0/24']);
      expect(inRanges('10.0.0.0', ranges)).to.equal(true);
      expect(inRanges('10.255.255.255', ranges)).to.equal(true);
      expect(inRanges('11.0.0.0', ranges)).to.equal(false);
      expect(inRanges('9.255.255.255', ranges)).to.equal(false);
      expect(inRanges('192.168.1.200', ranges)).to.equal(true);
      expect(inRanges('192.168.2.1', ranges)).to.equal(false);
    });

    it('matches an IPv4-mapped peer against IPv4 ranges', () => {
      expect(inRanges('::ffff:10.1.2.3', parseRanges(['10.0.0.0/8']))).to.equal(true);
      expect(inRanges('::ffff:11.1.2.3', parseRanges(['10.0.0.0/8']))).to.equal(false);
    });

    it('matches IPv6 ranges and treats a bare IPv6 address as a /128', () => {
      const ranges = parseRanges(['2001:db8::/32', '::1']);
      expect(inRanges('2001:db8:ffff::1', ranges)).to.equal(true);
      expect(inRanges('2001:DB8::abcd', ranges)).to.equal(true);
      expect(inRanges('2001:db9::1', ranges)).to.equal(false);
      expect(inRanges('::1', ranges)).to.equal(true);
      expect(inRanges('0:0:0:0:0:0:0:1', ranges)).to.equal(true);
      expect(inRanges('::2', ranges)).to.equal(false);
    });

    it('never matches across address families, garbage, or an empty list', () => {
      expect(inRanges('10.0.0.1', parseRanges(['::/0']))).to.equal(false);
      expect(inRanges('::1', parseRanges(['0.0.0.0/0']))).to.equal(false);
      expect(inRanges('not-an-ip', parseRanges(['0.0.0.0/0', '::/0']))).to.equal(false);
      expect(inRanges('10.0.0.1', [])).to.equal(false);
    });
  });

  describe('resolveClientAddress', () => {
    const proxies = parseRanges(['10.0.0.0/8', '2001:db8:1::/48']);

    it('normalises an IPv4-mapped socket address', () => {
      expect(resolveClientAddress('::ffff:203.0.113.9', false, {}, [])).to.deep.equal({ ip: '203.0.113.9', protocol: 'http' });
    });

    it('uses the socket address and scheme when no proxy is trusted', () => {
      const headers = { forwardedFor: '1.2.3.4', forwardedProto: 'https' };
      expect(resolveClientAddress('10.0.0.2', false, headers, [])).to.deep.equal({ ip: '10.0.0.2', protocol: 'http' });
      expect(resolveClientAddress('10.0.0.2', true, {}, [])).to.deep.equal({ ip: '10.0.0.2', protocol: 'https' });
    });

    it('ignores forged forwarding headers from an untrusted peer', () => {
      const headers = { forwardedFor: '10.0.0.5, 127.0.0.1', forwardedProto: 'https' };
      expect(resolveClientAddress('198.51.100.7', false, headers, proxies)).to.deep.equal({ ip: '198.51.100.7', protocol: 'http' });
    });

    it('believes X-Forwarded-For from a trusted peer', () => {
      expect(resolveClientAddress('10.0.0.2', false, { forwardedFor: '203.0.113.9' }, proxies).ip).to.equal('203.0.113.9');
    });

    it('trusts a peer connecting over an IPv4-mapped address', () => {
      expect(resolveClientAddress('::ffff:10.0.0.2', false, { forwardedFor: '203.0.113.9' }, proxies).ip).to.equal('203.0.113.9');
    });

    it('keeps the trusted peer address when it sends no X-Forwarded-For', () => {
      expect(resolveClientAddress('10.0.0.2', false, {}, proxies).ip).to.equal('10.0.0.2');
      expect(resolveClientAddress('10.0.0.2', false, { forwardedFor: ' , ' }, proxies).ip).to.equal('10.0.0.2');
    });

    it('walks a multi-hop X-Forwarded-For from the right, skipping trusted proxies', () => {
      // The client forged the leftmost entry; our two proxies appended the rest.
      const forwardedFor = '1.1.1.1, 203.0.113.9, 10.0.0.5';
      expect(resolveClientAddress('10.0.0.2', false, { forwardedFor }, proxies).ip).to.equal('203.0.113.9');
    });

    it('stops at the first untrusted hop even if an earlier hop looks like a proxy', () => {
      const forwardedFor = '10.9.9.9, 198.51.100.1, 10.0.0.5';
      expect(resolveClientAddress('10.0.0.2', false, { forwardedFor }, proxies).ip).to.equal('198.51.100.1');
    });

    it('normalises IPv4-mapped entries in X-Forwarded-For', () => {
      const forwardedFor = '::ffff:203.0.113.9, ::ffff:10.0.0.5';
      expect(resolveClientAddress('10.0.0.2', false, { forwardedFor }, proxies).ip).to.equal('203.0.113.9');
    });

    it('handles IPv6 proxies and IPv6 clients', () => {
      const forwardedFor = '2001:DB8:2::99, 2001:db8:1::5';
      expect(resolveClientAddress('2001:db8:1::10', false, { forwardedFor }, proxies).ip).to.equal('2001:db8:2::99');
      expect(resolveClientAddress('2001:db8:2::10', false, { forwardedFor }, proxies).ip).to.equal('2001:db8:2::10');
    });

    it('honours X-Forwarded-Proto https only from a trusted peer', () => {
      expect(resolveClientAddress('10.0.0.2', false, { forwardedProto: 'https' }, proxies).protocol).to.equal('https');
      expect(resolveClientAddress('10.0.0.2', false, { forwardedProto: 'HTTPS' }, proxies).protocol).to.equal('https');
      expect(resolveClientAddress('198.51.100.7', false, { forwardedProto: 'https' }, proxies).protocol).to.equal('http');
    });

    it('lets a trusted proxy report plain http over a TLS hop, and ignores unknown schemes', () => {
      expect(resolveClientAddress('10.0.0.2', true, { forwardedProto: 'http' }, proxies).protocol).to.equal('http');
      expect(resolveClientAddress('10.0.0.2', true, { forwardedProto: 'ftp' }, proxies).protocol).to.equal('https');
      expect(resolveClientAddress('10.0.0.2', false, { forwardedProto: 'ftp' }, proxies).protocol).to.equal('http');
    });

    it('keeps the socket scheme from an untrusted peer whatever it claims', () => {
      expect(resolveClientAddress('198.51.100.7', true, { forwardedProto: 'http' }, proxies).protocol).to.equal('https');
    });
  });
});
