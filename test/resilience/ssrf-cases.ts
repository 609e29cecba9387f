/**
 * The SSRF battery's table: URLs a client may submit (or a page may link to, or a server may
 * redirect to) that must never lead to a connection. `{p}` stands for the case's canary port:
 * every case targets a port of its own, so a connection that does happen names its case.
 * docs/resilience.md ("SSRF battery") describes the classes and what each proves.
 */

export type CaseClass =
  | 'IPv4 special range'
  | 'IPv6 special range'
  | 'IPv4 inside IPv6'
  | 'numeric form'
  | 'credentials and @'
  | 'encoded host'
  | 'name resolving to loopback'
  | 'redirect to a private address'
  | 'redirect to another scheme';

interface Row {
  readonly class: CaseClass;
  readonly name: string;
  /** The target, with {p} for the canary port. */
  readonly url: string;
  /** Reached through the local site answering this status with `Location: url`, instead of directly. */
  readonly redirect?: 301 | 302 | 303 | 307 | 308;
  /** A second redirect of the site before the one to `url`. */
  readonly twoHops?: boolean;
}

const ROWS: readonly Row[] = [
  ...ipv4([
    ['loopback', '127.0.0.1'],
    ['loopback, far end of 127/8', '127.255.255.254'],
    ['"this host" 0.0.0.0 (Linux connects it to the local host)', '0.0.0.0'],
    ['"this network" 0/8', '0.1.2.3'],
    ['private 10/8', '10.0.0.1'],
    ['private 172.16/12, first', '172.16.0.1'],
    ['private 172.16/12, last', '172.31.255.254'],
    ['private 192.168/16', '192.168.0.1'],
    ['cloud metadata 169.254.169.254', '169.254.169.254'],
    ['link-local 169.254/16', '169.254.0.1'],
    ['carrier-grade NAT 100.64/10, first', '100.64.0.1'],
    ['carrier-grade NAT 100.64/10, last', '100.127.255.254'],
    ['multicast 224/4', '224.0.0.1'],
    ['multicast, SSDP', '239.255.255.250'],
    ['limited broadcast', '255.255.255.255'],
    ['reserved 240/4', '240.0.0.1'],
    ['IETF protocol assignments 192.0.0/24', '192.0.0.170'],
    ['benchmarking 198.18/15, first', '198.18.0.1'],
    ['benchmarking 198.18/15, last', '198.19.255.254'],
    ['documentation TEST-NET-1', '192.0.2.1'],
    ['documentation TEST-NET-2', '198.51.100.1'],
    ['documentation TEST-NET-3', '203.0.113.1'],
  ]),
  ...ipv6('IPv6 special range', [
    ['loopback ::1', '::1'],
    ['unspecified ::', '::'],
    ['unique local fc00::/7', 'fc00::1'],
    ['unique local, AWS metadata fd00:ec2::254', 'fd00:ec2::254'],
    ['link-local fe80::/10', 'fe80::1'],
    ['deprecated site-local fec0::/10', 'fec0::1'],
    ['multicast ff02::1', 'ff02::1'],
    ['multicast ff05::1:3', 'ff05::1:3'],
    ['documentation 2001:db8::/32', '2001:db8::1'],
    ['discard-only 100::/64', '100::1'],
    ['benchmarking 2001:2::/48', '2001:2::1'],
    ['ORCHIDv2 2001:20::/28', '2001:20::1'],
  ]),
  ...ipv6('IPv4 inside IPv6', [
    ['IPv4-mapped loopback, dotted', '::ffff:127.0.0.1'],
    ['IPv4-mapped loopback, hex', '::ffff:7f00:1'],
    ['IPv4-mapped loopback, uncompressed', '0:0:0:0:0:ffff:7f00:1'],
    ['IPv4-mapped metadata', '::ffff:169.254.169.254'],
    ['IPv4-mapped private', '::ffff:10.0.0.1'],
    ['IPv4-compatible loopback (deprecated)', '::127.0.0.1'],
    ['SIIT ::ffff:0:0/96 loopback', '::ffff:0:127.0.0.1'],
    ['NAT64 64:ff9b::/96 loopback', '64:ff9b::127.0.0.1'],
    ['NAT64 64:ff9b::/96 metadata', '64:ff9b::169.254.169.254'],
    ['NAT64 64:ff9b::/96 private', '64:ff9b::10.0.0.1'],
    ['local-use NAT64 64:ff9b:1::/48', '64:ff9b:1::a00:1'],
    ['6to4 2002::/16 loopback', '2002:7f00:1::1'],
    ['6to4 2002::/16 metadata', '2002:a9fe:a9fe::1'],
    ['6to4 2002::/16 private', '2002:c0a8:1::1'],
    ['Teredo 2001::/32, client 127.0.0.1', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
  ]),
  ...hosts('numeric form', [
    ['decimal', '2130706433'],
    ['octal parts', '0177.0.0.1'],
    ['octal whole', '017700000001'],
    ['hex whole', '0x7f000001'],
    ['hex parts', '0x7f.0x0.0x0.0x1'],
    ['hex, short', '0x7f.1'],
    ['short, two parts', '127.1'],
    ['short, three parts', '127.0.1'],
    ['zero alone (0.0.0.0)', '0'],
    ['zero-padded parts', '127.000.000.001'],
    ['trailing dot', '127.0.0.1.'],
    ['metadata, decimal', '2852039166'],
    ['metadata, hex', '0xa9fea9fe'],
    ['metadata, octal parts', '0251.0376.0251.0376'],
    ['private, hex short', '0xa.1'],
  ]),
  ...urls('credentials and @', [
    ['public-looking user name before @', 'http://example.com@127.0.0.1:{p}/'],
    ['user and password', 'http://user:pass@127.0.0.1:{p}/'],
    ['user name with a port before @', 'http://example.com:80@127.0.0.1:{p}/'],
    ['@ in the fragment', 'http://127.0.0.1:{p}#@example.com/'],
    ['@ in the query', 'http://127.0.0.1:{p}?@example.com/'],
    ['backslash before @ (a slash to WHATWG)', 'http://127.0.0.1:{p}\\@example.com/'],
    ['& and # around @', 'http://example.com&@127.0.0.1:{p}#@example.com/'],
    ['percent-encoded @ in the user name', 'http://%40example.com@127.0.0.1:{p}/'],
  ]),
  ...urls('encoded host', [
    ['percent-encoded digits', 'http://%31%32%37.0.0.1:{p}/'],
    ['full-width digits and dots', 'http://１２７.０.０.１:{p}/'],
    ['ideographic full stops', 'http://127。0。0。1:{p}/'],
    ['circled digits', 'http://①②⑦.⓪.⓪.①:{p}/'],
    ['percent-encoded localhost', 'http://%6c%6f%63%61%6c%68%6f%73%74:{p}/'],
    ['full-width localhost', 'http://ｌｏｃａｌｈｏｓｔ:{p}/'],
  ]),
  ...urls('name resolving to loopback', [
    ['localhost', 'http://localhost:{p}/'],
    ['LOCALHOST in capitals', 'http://LOCALHOST:{p}/'],
    ['localhost over https', 'https://localhost:{p}/'],
    ['a name under .localhost', 'http://ssrf.localhost:{p}/'],
    // Fully qualified forms of the same names (RFC 6761): they once passed the alerts' save-time check.
    ['localhost with a trailing dot', 'http://localhost.:{p}/'],
    ['a name under .localhost with a trailing dot', 'http://ssrf.localhost.:{p}/'],
  ]),
  ...([301, 302, 303, 307, 308] as const).map((status): Row => (
    { class: 'redirect to a private address', name: `${status} to loopback`, url: 'http://127.0.0.1:{p}/', redirect: status })),
  ...redirects('redirect to a private address', [
    [302, 'to cloud metadata', 'http://169.254.169.254:{p}/latest/meta-data/'],
    [307, 'to IPv6 loopback', 'http://[::1]:{p}/'],
    [308, 'to a name resolving to loopback', 'http://localhost:{p}/'],
    [301, 'to a decimal address', 'http://2130706433:{p}/'],
    [303, 'to an IPv4-mapped address', 'http://[::ffff:7f00:1]:{p}/'],
    [302, 'to a scheme-relative URL', '//127.0.0.1:{p}/'],
    [301, 'to private 10/8 after a first redirect', 'http://10.0.0.1:{p}/', true],
  ]),
  ...redirects('redirect to another scheme', [
    [301, 'to file:', 'file:///etc/passwd'],
    [302, 'to ftp:', 'ftp://127.0.0.1:{p}/'],
    [303, 'to gopher:', 'gopher://127.0.0.1:{p}/_GET%20/'],
    [307, 'to data:', 'data:text/html,<p>hello</p>'],
    [308, 'to javascript:', 'javascript:alert(1)'],
    [302, 'to dict:', 'dict://127.0.0.1:{p}/info'],
  ]),
];

function ipv4(rows: ReadonlyArray<readonly [string, string]>): Row[] {
  return rows.map(([name, ip]) => ({ class: 'IPv4 special range', name, url: `http://${ip}:{p}/` }));
}

function ipv6(kind: CaseClass, rows: ReadonlyArray<readonly [string, string]>): Row[] {
  return rows.map(([name, ip]) => ({ class: kind, name, url: `http://[${ip}]:{p}/` }));
}

function hosts(kind: CaseClass, rows: ReadonlyArray<readonly [string, string]>): Row[] {
  return rows.map(([name, host]) => ({ class: kind, name, url: `http://${host}:{p}/` }));
}

function urls(kind: CaseClass, rows: ReadonlyArray<readonly [string, string]>): Row[] {
  return rows.map(([name, url]) => ({ class: kind, name, url }));
}

function redirects(kind: CaseClass, rows: ReadonlyArray<readonly [301 | 302 | 303 | 307 | 308, string, string, boolean?]>): Row[] {
  return rows.map(([redirect, name, url, twoHops]) => ({ class: kind, name, url, redirect, ...(twoHops ? { twoHops } : {}) }));
}

export const SSRF_CASE_COUNT = ROWS.length;

/** How a case must be refused. */
export type Refusal =
  /**
   * By the address guard, naming one of these addresses (a name's resolved address, a literal as
   * the URL parser wrote it). `unresolved`: a loopback name (RFC 6761) that the machine's
   * resolver may not know at all (localhost. and *.localhost often are not in /etc/hosts), so
   * "host not found" is the other answer; either way nothing is connected to.
   */
  | { readonly kind: 'address'; readonly addresses: readonly string[]; readonly unresolved: boolean }
  /** By the redirect check: only http(s) is followed. */
  | { readonly kind: 'scheme' };

export interface SsrfCase {
  readonly class: CaseClass;
  readonly name: string;
  /** The canary port the case targets. */
  readonly port: number;
  /** What is submitted: the target itself, or the local site's redirect to it. */
  readonly url: string;
  /** The target with the port filled in. */
  readonly target: string;
  readonly redirect: boolean;
  readonly refusal: Refusal;
}

/** Loopback names resolve to either family, whichever the resolver lists. */
const LOOPBACK = ['127.0.0.1', '::1'];

/**
 * The cases, each on its own port of `ports`.
 * @param site origin of the local site whose /r/<status>?to=<url> answers that redirect (reachable although the guard is on).
 */
export function ssrfCases(ports: readonly number[], site: string): SsrfCase[] {
  if (ports.length < ROWS.length) throw new Error(`${ROWS.length} ports needed, ${ports.length} given`);
  return ROWS.map((row, i) => {
    const port = ports[i]!;
    const target = row.url.replaceAll('{p}', String(port));
    let url = target;
    if (row.redirect) {
      url = redirectUrl(site, row.redirect, target);
      if (row.twoHops) url = redirectUrl(site, 302, url);
    }
    return { class: row.class, name: row.name, port, url, target, redirect: row.redirect !== undefined, refusal: refusalOf(target, site) };
  });
}

export function redirectUrl(site: string, status: number, to: string): string {
  return `${site}/r/${status}?to=${encodeURIComponent(to)}`;
}

function refusalOf(target: string, site: string): Refusal {
  const parsed = new URL(target, site);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { kind: 'scheme' };
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  // The guard names a literal as the URL parser normalised it (0x7f.1 is 127.0.0.1, [::ffff:127.0.0.1] is ::ffff:7f00:1).
  const literal = /^[\d.]+$/.test(host) || host.includes(':');
  return { kind: 'address', addresses: literal ? [host] : LOOPBACK, unresolved: !literal && host !== 'localhost' };
}
