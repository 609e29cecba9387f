import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { createAddressGuard } from '../src/fetch/address-guard.js';
import type { FetchOptions } from '../src/fetch/fetch-page.js';
import { fetchPage } from './helpers/fetch-as-client.js';
import { failure } from './helpers/rejection.js';

// Only servers this file starts on 127.0.0.1 are ever contacted: every other address in here
// is one the guard must refuse before any connection is attempted, or a name under the reserved
// .invalid TLD, which never resolves.

const CHALLENGE = `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head><body>
<noscript>Enable JavaScript and cookies to continue</noscript>
<script>window._cf_chl_opt={cvId: '3',cType: 'managed'};</script></body></html>`;
async function listen(handler: http.RequestListener): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('address guard', () => {
  const publicOnly = createAddressGuard([]);

  it('allows public unicast addresses', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
      expect(publicOnly(ip), ip).to.equal(true);
    }
  });

  it('refuses non-public IPv4 ranges', () => {
    const refused = [
      '127.0.0.1', '127.255.255.254', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1',
      '169.254.169.254', '169.254.0.1', '100.64.0.1', '100.127.255.255', '0.0.0.0', '255.255.255.255',
      '224.0.0.1', '239.255.255.250', '240.0.0.1', '192.0.2.1', '198.18.0.1',
    ];
    for (const ip of refused) expect(publicOnly(ip), ip).to.equal(false);
  });

  it('refuses non-public IPv6 ranges, mapped and embedded forms', () => {
    const refused = [
      '::1', '::', 'fc00::1', 'fd12:3456::1', 'fd00:ec2::254', 'fe80::1', 'fe80::1%eth0', 'ff02::1',
      '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '::ffff:10.0.0.1',
      '64:ff9b::a9fe:a9fe', '2002:7f00:1::1', '2001:0:4136:e378::1', '::127.0.0.1', '2001:db8::1',
    ];
    for (const ip of refused) expect(publicOnly(ip), ip).to.equal(false);
  });

  it('refuses anything that is not a canonical IP address', () => {
    for (const text of ['', 'localhost', '127.1', '0x7f000001', '1.2.3.4.5']) expect(publicOnly(text), text).to.equal(false);
  });

  it('allows non-public addresses inside the configured CIDRs, and only those', () => {
    const loopback = createAddressGuard(['127.0.0.0/8']);
    expect(loopback('127.0.0.2')).to.equal(true);
    expect(loopback('::ffff:127.0.0.1')).to.equal(true);
    expect(loopback('::1')).to.equal(false);
    expect(loopback('10.0.0.1')).to.equal(false);
    expect(createAddressGuard(['::1/128'])('::1')).to.equal(true);
  });

  it('rejects a malformed CIDR at creation', () => {
    expect(() => createAddressGuard(['127.0.0.1/33'])).to.throw(/invalid CIDR/);
  });
});

describe('fetchPage', function () {
  this.timeout(5000);

  let server: http.Server;
  let base: string;
  let port: number;
  let bomb: Buffer;
  const trickles = new Set<NodeJS.Timeout>();

  const options: FetchOptions = {
    timeoutMs: 2000,
    maxBytes: 1_000_000,
    maxRedirects: 5,
    userAgent: 'sev-test/1.0',
    allowedCidrs: ['127.0.0.1/32'],
  };

  const routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
    '/page': (req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; Charset="UTF-8"', 'x-seen-ua': req.headers['user-agent'] ?? '' });
      res.end(`<html>hello</html><!-- ${req.headers.accept} | ${req.headers['accept-encoding']} -->`);
    },
    '/plain': (_req, res) => {
      res.writeHead(200, { 'content-type': 'TEXT/PLAIN' });
      res.end('plain');
    },
    '/gzip': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end(zlib.gzipSync('<p>zipped</p>'));
    },
    '/br': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'br' });
      res.end(zlib.brotliCompressSync('<p>brotli</p>'));
    },
    '/corrupt': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end('this is not gzip');
    },
    '/compress': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'compress' });
      res.end('whatever');
    },
    '/silent': () => undefined,
    '/relative': (_req, res) => redirect(res, 'page'),
    '/chain/1': (_req, res) => redirect(res, '/chain/2'),
    '/chain/2': (_req, res) => redirect(res, `${base}/chain/3`, 301),
    '/chain/3': (_req, res) => redirect(res, '/page#top', 307),
    '/loop/a': (_req, res) => redirect(res, '/loop/b'),
    '/loop/b': (_req, res) => redirect(res, '/loop/a'),
    '/to-ipv6': (_req, res) => redirect(res, `http://[::1]:${port}/page`),
    '/to-127-2': (_req, res) => redirect(res, `http://127.0.0.2:${port}/page`),
    '/to-metadata': (_req, res) => redirect(res, 'http://169.254.169.254/latest/meta-data/'),
    '/to-file': (_req, res) => redirect(res, 'file:///etc/passwd'),
    '/missing': (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('not here');
    },
    '/trickle': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      const timer = setInterval(() => res.write('.'), 50);
      trickles.add(timer);
      res.on('close', () => clearInterval(timer));
    },
    '/bomb': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip', 'content-length': bomb.length });
      res.end(bomb);
    },
    '/declared-large': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': 5_000_000 });
      res.write('x'.repeat(1000));
    },
    '/challenge-403': (_req, res) => {
      res.writeHead(403, { 'content-type': 'text/html', 'content-encoding': 'gzip', server: 'cloudflare' });
      res.end(zlib.gzipSync(CHALLENGE));
    },
    '/challenge-503': (_req, res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end(CHALLENGE);
    },
    '/mitigated': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'cf-mitigated': 'challenge' });
      res.end('<html><body></body></html>');
    },
    '/unavailable': (_req, res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('<html><body><h1>Service Unavailable</h1><p>Back soon.</p></body></html>');
    },
    '/forbidden-trickle': (_req, res) => trickle(res, 403),
    '/missing-trickle': (_req, res) => trickle(res, 404),
    '/image': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': 5_000_000 });
      res.write(Buffer.alloc(1000));
    },
    '/untyped-html': (_req, res) => {
      res.writeHead(200);
      res.end('<!DOCTYPE html><html><body><p>no type</p></body></html>');
    },
    '/untyped-binary': (_req, res) => {
      res.writeHead(200);
      res.end(Buffer.from([0x00, 0x01, 0x02, 0x03, 0x10, 0x11]));
    },
    '/xhtml-as-xml': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body><p>x</p></body></html>');
    },
    '/feed': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end('<?xml version="1.0"?><rss version="2.0"><channel></channel></rss>');
    },
    '/markdown': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' });
      res.end('# Title\n\nText.');
    },
    '/pdf': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end('%PDF-1.4\n1 0 obj');
    },
    '/pdf-download': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end('%PDF-1.4\n1 0 obj');
    },
    '/zip-download': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.from('504b0304140000000800', 'hex'));
    },
    '/undeclared-large': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('x'.repeat(750_000));
      res.end('x'.repeat(750_000));
    },
  };

  function trickle(res: http.ServerResponse, status: number): void {
    res.writeHead(status, { 'content-type': 'text/html' });
    const timer = setInterval(() => res.write('.'), 50);
    trickles.add(timer);
    res.on('close', () => clearInterval(timer));
  }

  function redirect(res: http.ServerResponse, location: string, status = 302): void {
    res.writeHead(status, { location });
    res.end('moved');
  }

  before(async () => {
    bomb = zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024), { level: 1 });
    ({ server, port } = await listen((req, res) => {
      // Aborted fetches reset sockets; the server must shrug that off.
      res.on('error', () => undefined);
      const route = routes[new URL(req.url ?? '/', 'http://x').pathname];
      if (route) return route(req, res);
      res.writeHead(500);
      res.end();
    }));
    base = `http://127.0.0.1:${port}`;
  });

  after(async () => {
    for (const timer of trickles) clearInterval(timer);
    await close(server);
  });

  it('fetches a page with its content type, charset and headers', async () => {
    const page = await fetchPage(`${base}/page`, options);
    expect(page.status).to.equal(200);
    expect(page.url).to.equal(`${base}/page`);
    expect(page.finalUrl).to.equal(`${base}/page`);
    expect(page.redirects).to.deep.equal([]);
    expect(page.contentType).to.equal('text/html');
    expect(page.charset).to.equal('utf-8');
    expect(page.headers['x-seen-ua']).to.equal('sev-test/1.0');
    expect(page.body.toString()).to.equal(
      '<html>hello</html><!-- text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.8,*/*;q=0.5 | gzip, deflate, br -->',
    );
  });

  it('lower-cases the mime type and omits a missing charset', async () => {
    const page = await fetchPage(`${base}/plain`, options);
    expect(page.contentType).to.equal('text/plain');
    expect(page).not.to.have.property('charset');
  });

  it('says how to extract: html, text or pdf', async () => {
    expect((await fetchPage(`${base}/page`, options)).kind).to.equal('html');
    expect((await fetchPage(`${base}/plain`, options)).kind).to.equal('text');
    expect((await fetchPage(`${base}/markdown`, options)).kind).to.equal('text');
    expect((await fetchPage(`${base}/xhtml-as-xml`, options)).kind).to.equal('html');
    expect((await fetchPage(`${base}/pdf`, options)).kind).to.equal('pdf');
    expect((await fetchPage(`${base}/pdf-download`, options)).kind).to.equal('pdf');
    const error = await failure(fetchPage(`${base}/zip-download`, options));
    expect(error.details).to.deep.equal({ reason: 'unsupported content type: application/octet-stream' });
  });

  it('sniffs a response without Content-Type', async () => {
    const page = await fetchPage(`${base}/untyped-html`, options);
    expect(page.contentType).to.equal('');
    expect(page.kind).to.equal('html');
    const error = await failure(fetchPage(`${base}/untyped-binary`, options));
    expect(error.code).to.equal('EXTRACTION_FAILED');
    expect(error.details).to.deep.equal({ reason: 'unsupported content type: application/octet-stream (sniffed)' });
  });

  it('refuses an unsupported type by its header, before downloading the body', async () => {
    const started = Date.now();
    const error = await failure(fetchPage(`${base}/image`, options));
    expect(error.code).to.equal('EXTRACTION_FAILED');
    expect(error.details).to.deep.equal({ reason: 'unsupported content type: image/png' });
    expect(Date.now() - started).to.be.lessThan(1000);
    const feed = await failure(fetchPage(`${base}/feed`, options));
    expect(feed.details).to.deep.equal({ reason: 'unsupported content type: text/xml' });
  });

  it('decompresses gzip and brotli bodies', async () => {
    expect((await fetchPage(`${base}/gzip`, options)).body.toString()).to.equal('<p>zipped</p>');
    expect((await fetchPage(`${base}/br`, options)).body.toString()).to.equal('<p>brotli</p>');
  });

  it('fails a body that does not decode', async () => {
    const error = await failure(fetchPage(`${base}/corrupt`, options));
    expect(error.code).to.equal('EXTRACTION_FAILED');
    expect(error.details?.reason).to.match(/^invalid gzip body/);
  });

  it('fails an unsupported content encoding', async () => {
    const error = await failure(fetchPage(`${base}/compress`, options));
    expect(error.details).to.deep.equal({ reason: 'unsupported content encoding: compress' });
  });

  it('follows a relative redirect', async () => {
    const page = await fetchPage(`${base}/relative`, options);
    expect(page.finalUrl).to.equal(`${base}/page`);
    expect(page.redirects).to.deep.equal([`${base}/page`]);
    expect(page.body.toString()).to.match(/^<html>hello/);
  });

  it('follows a chain of redirects and drops fragments', async () => {
    const page = await fetchPage(`${base}/chain/1#frag`, options);
    expect(page.url).to.equal(`${base}/chain/1#frag`);
    expect(page.redirects).to.deep.equal([`${base}/chain/2`, `${base}/chain/3`, `${base}/page`]);
    expect(page.finalUrl).to.equal(`${base}/page`);
  });

  it('stops a redirect loop', async () => {
    const error = await failure(fetchPage(`${base}/loop/a`, options));
    expect(error.code).to.equal('URL_UNREACHABLE');
    expect(error.details).to.deep.equal({ url: `${base}/loop/a`, reason: 'too many redirects' });
  });

  it('stops after maxRedirects', async () => {
    const error = await failure(fetchPage(`${base}/chain/1`, { ...options, maxRedirects: 2 }));
    expect(error.details?.reason).to.equal('too many redirects');
    const none = await failure(fetchPage(`${base}/relative`, { ...options, maxRedirects: 0 }));
    expect(none.details?.reason).to.equal('too many redirects');
  });

  it('refuses redirects to addresses outside the allow-list', async () => {
    for (const [path, ip] of [['/to-ipv6', '::1'], ['/to-127-2', '127.0.0.2'], ['/to-metadata', '169.254.169.254']]) {
      const error = await failure(fetchPage(`${base}${path}`, options));
      expect(error.code, path).to.equal('URL_UNREACHABLE');
      expect(error.details, path).to.deep.equal({ url: `${base}${path}`, reason: `address not allowed: ${ip}` });
    }
  });

  it('refuses redirects to other schemes', async () => {
    const error = await failure(fetchPage(`${base}/to-file`, options));
    expect(error.code).to.equal('URL_UNREACHABLE');
    expect(error.details?.reason).to.equal('redirect to a non-http(s) URL');
  });

  it('refuses a loopback literal when nothing is allowed', async () => {
    const error = await failure(fetchPage(`${base}/page`, { ...options, allowedCidrs: [] }));
    expect(error.details).to.deep.equal({ url: `${base}/page`, reason: 'address not allowed: 127.0.0.1' });
  });

  it('judges the address a host name resolves to', async () => {
    const url = `http://localhost:${port}/page`;
    const error = await failure(fetchPage(url, { ...options, allowedCidrs: [] }));
    expect(error.code).to.equal('URL_UNREACHABLE');
    expect(error.details?.reason).to.match(/^address not allowed: (127\.0\.0\.1|::1)$/);
    const page = await fetchPage(url, options);
    expect(page.status).to.equal(200);
  });

  it('rejects URLs that are not absolute http(s) URLs', async () => {
    for (const url of ['ftp://127.0.0.1/', 'file:///etc/passwd', 'javascript:alert(1)', '/page', 'not a url', '']) {
      const error = await failure(fetchPage(url, options));
      expect(error.code, url).to.equal('URL_INVALID');
      expect(error.details, url).to.deep.equal({ url, expected_format: 'absolute http:// or https:// URL' });
    }
  });

  it('reports an HTTP error status', async () => {
    const error = await failure(fetchPage(`${base}/missing`, options));
    expect(error.code).to.equal('URL_UNREACHABLE');
    expect(error.details).to.deep.equal({ url: `${base}/missing`, http_status: 404, reason: 'HTTP 404' });
  });

  it('reports a bot challenge as EXTRACTION_FAILED, not as an HTTP error', async () => {
    for (const path of ['/challenge-403', '/challenge-503', '/mitigated']) {
      const error = await failure(fetchPage(`${base}${path}`, options));
      expect(error.code, path).to.equal('EXTRACTION_FAILED');
      expect(error.details, path).to.deep.equal({ reason: 'blocked: Cloudflare challenge' });
    }
  });

  it('reports an error status without a challenge as URL_UNREACHABLE', async () => {
    const error = await failure(fetchPage(`${base}/unavailable`, options));
    expect(error.code).to.equal('URL_UNREACHABLE');
    expect(error.details).to.deep.equal({ url: `${base}/unavailable`, http_status: 503, reason: 'HTTP 503' });
  });

  it('does not wait for the body of an error page that cannot be a challenge', async () => {
    const started = Date.now();
    const error = await failure(fetchPage(`${base}/missing-trickle`, options));
    expect(error.details).to.deep.equal({ url: `${base}/missing-trickle`, http_status: 404, reason: 'HTTP 404' });
    expect(Date.now() - started).to.be.lessThan(500);
  });

  it('stops reading a trickling 403 at the deadline', async () => {
    const error = await failure(fetchPage(`${base}/forbidden-trickle`, { ...options, timeoutMs: 300 }));
    expect(error.details).to.deep.equal({ url: `${base}/forbidden-trickle`, reason: 'timed out after 0.3s' });
  });

  it('cuts off a server that trickles its body at the deadline', async () => {
    const started = Date.now();
    const error = await failure(fetchPage(`${base}/trickle`, { ...options, timeoutMs: 500 }));
    expect(error.code).to.equal('URL_UNREACHABLE');
    expect(error.details).to.deep.equal({ url: `${base}/trickle`, reason: 'timed out after 0.5s' });
    expect(Date.now() - started).to.be.lessThan(1500);
  });

  it('cuts off a server that never answers at the deadline', async () => {
    const error = await failure(fetchPage(`${base}/silent`, { ...options, timeoutMs: 300 }));
    expect(error.details).to.deep.equal({ url: `${base}/silent`, reason: 'timed out after 0.3s' });
  });

  it('rejects with the caller’s reason when the caller aborts', async () => {
    const controller = new AbortController();
    const reason = new Error('shutting down');
    setTimeout(() => controller.abort(reason), 100);
    try {
      await fetchPage(`${base}/trickle`, { ...options, signal: controller.signal });
      expect.fail('expected the fetch to be aborted');
    } catch (error) {
      expect(error).to.equal(reason);
    }
  });

  it('stops a gzip bomb as soon as the decompressed size passes maxBytes', async () => {
    const started = Date.now();
    const error = await failure(fetchPage(`${base}/bomb`, options));
    expect(error.code).to.equal('EXTRACTION_FAILED');
    expect(error.details).to.deep.equal({ reason: 'response larger than 1000000 bytes' });
    expect(Date.now() - started).to.be.lessThan(1000);
  });

  it('refuses a declared Content-Length above maxBytes without reading the body', async () => {
    const error = await failure(fetchPage(`${base}/declared-large`, options));
    expect(error.details).to.deep.equal({ reason: 'response larger than 1000000 bytes' });
  });

  it('refuses an undeclared body above maxBytes', async () => {
    const error = await failure(fetchPage(`${base}/undeclared-large`, options));
    expect(error.details).to.deep.equal({ reason: 'response larger than 1000000 bytes' });
  });

  it('reports a host name that does not resolve', async () => {
    const url = 'http://no-such-host.invalid/page';
    const error = await failure(fetchPage(url, options));
    expect(error.code).to.equal('URL_UNREACHABLE');
    expect(error.details).to.deep.equal({ url, reason: 'host not found' });
  });

  it('reports a refused connection', async () => {
    const closed = await listen(() => undefined);
    await close(closed.server);
    const url = `http://127.0.0.1:${closed.port}/`;
    const error = await failure(fetchPage(url, options));
    expect(error.details).to.deep.equal({ url, reason: 'connection refused' });
  });
});
