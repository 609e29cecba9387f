import { expect } from 'chai';
import net from 'node:net';
import { call, startTestService, TEST_KEY, testEnv, type TestService } from './helpers/service.js';
import { expectSchema } from './helpers/response-schema.js';
import { answerClientError, listen } from '../src/http/server.js';
import { loadConfig } from '../src/config.js';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** What comes back on a raw connection after sending `request`, until the server closes it. */
function exchange(port: number, request: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may close while the request is still being sent: what it answered is the point.
    socket.on('error', () => {});
    socket.on('close', () => {
      try {
        resolve(parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
  });
}

function parse(text: string): RawResponse {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`no HTTP response in ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
  }));
  let body = text.slice(split + 4);
  // A response Koa sent (no Host) is chunked.
  if (headers['transfer-encoding'] === 'chunked') body = body.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '');
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body) };
}

/** The error envelope every failure carries, with this code. */
function expectEnvelope(response: RawResponse, status: number, code: string): void {
  expect(response.status, JSON.stringify(response.body)).to.equal(status);
  expect(response.headers['content-type']).to.match(/^application\/json/);
  expect(response.body.success).to.equal(false);
  expect(response.body.error.code).to.equal(code);
  expect(response.body.request_id).to.match(/^req_[0-9a-f]{32}$/);
  expect(response.headers['x-request-id']).to.equal(response.body.request_id);
  expect(response.body.error.documentation).to.match(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/docs/errors#${code}$`));
  expectSchema('error.envelope', response.body);
}

describe("requests Node's HTTP parser refuses", function () {
  this.timeout(30_000);
  let service: TestService;
  let port: number;

  before(async () => {
    service = await startTestService({}, 'api');
    port = Number(new URL(service.url).port);
  });
  after(() => service.close());

  const post = (head: string) => `POST /v1/search HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_KEY}\r\nContent-Type: application/json\r\n${head}`;

  it('answers headers over 16 KB with 431 HEADERS_TOO_LARGE in the envelope', async () => {
    const response = await exchange(port, `GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectEnvelope(response, 431, 'HEADERS_TOO_LARGE');
    expect(response.body.error.details).to.deep.equal({ max_size_kb: 16 });
    expect(response.body.error.suggestion).to.include('16 KB');
    expect(response.headers.connection).to.equal('close');
  });

  it('answers an unknown method, a bad URL, a bad chunk and an overlong chunk extension with 400 MALFORMED_REQUEST', async () => {
    const cases: Array<[string | Buffer, string]> = [
      ['FOO /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 'Invalid method encountered'],
      [Buffer.concat([Buffer.from('GET /v1/\xff'), Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')]), 'Invalid char in url path'],
      [`${post('Transfer-Encoding: chunked\r\n\r\n')}zz\r\n`, 'Invalid character in chunk size'],
      [`${post('Transfer-Encoding: chunked\r\n\r\n')}2;${'x'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`, 'Chunk extensions overflow'],
    ];
    for (const [request, reason] of cases) {
      const response = await exchange(port, request);
      expectEnvelope(response, 400, 'MALFORMED_REQUEST');
      expect(response.body.error.details).to.deep.equal({ reason });
    }
  });

  it('answers an HTTP/1.1 request without Host with 400 MALFORMED_REQUEST, and HTTP/1.0 without one as usual', async () => {
    const response = await exchange(port, 'GET /livez HTTP/1.1\r\nConnection: close\r\n\r\n');
    expectEnvelope(response, 400, 'MALFORMED_REQUEST');
    expect(response.body.error.details.reason).to.equal('an HTTP/1.1 request must carry a Host header');
    const old = await exchange(port, 'GET /livez HTTP/1.0\r\n\r\n');
    expect(old.status).to.equal(200);
  });

  it('closes a connection whose response has begun without writing into it', async () => {
    // A handler that sends its headers and part of its body, then waits: garbage sent on the same
    // connection meanwhile must not land in the middle of that response.
    const server = await listen(loadConfig(testEnv()), (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    try {
      const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('utf8');
        if (text.endsWith('partial\r\n')) socket.write('FOO / HTTP/1.1\r\n\r\n');
      });
      socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await new Promise((resolve) => socket.once('close', resolve));
      expect(text).to.match(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n7\r\npartial\r\n$/);
    } finally {
      server.closeAll();
      await server.drain(Date.now());
    }
  });

  it('answers a request time-out with 408 REQUEST_TIMEOUT', async () => {
    // Node reports the time-out on a connection its checks find late (every 30 s); given here on a real socket.
    const server = net.createServer((socket) => answerClientError(Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const response = await exchange((server.address() as net.AddressInfo).port, 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      expectEnvelope(response, 408, 'REQUEST_TIMEOUT');
      expect(response.body.error.message).to.match(/headers .*20 s.*120 s/);
    } finally {
      server.close();
    }
  });

  it('keeps serving', async () => {
    expect((await call(service.url, '/v1/health')).status).to.equal(200);
  });
});
