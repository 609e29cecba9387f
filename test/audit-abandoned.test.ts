import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { ARTICLE, html, startPageServer, type PageServer } from './helpers/page-server.js';
import { call, startTestService, TEST_KEY, type TestService } from './helpers/service.js';
import { eventually } from './helpers/wait.js';

/**
 * A client that hangs up before its answer: the request was admitted, metered and set to work,
 * so it has its audit entry (status 499) as soon as the client is gone, however long the work
 * behind it runs, and only that one entry.
 */
describe('audit of requests the client abandoned', function () {
  this.timeout(60_000);
  let service: TestService;
  let site: PageServer;
  const held: ServerResponse[] = [];
  let asked = 0;

  before(async () => {
    site = await startPageServer({
      '/held': (_req, res) => {
        asked++;
        held.push(res);
      },
    });
    service = await startTestService();
  });
  after(async () => {
    for (const res of held) res.destroy();
    await service?.close();
    await site?.close();
  });

  const entriesOf = async (requestId: string): Promise<any[]> => {
    const res = await call(service.url, `/v1/audit?request_id=${requestId}`);
    expect(res.status).to.equal(200);
    return res.json.data.entries;
  };

  it('records an extraction abandoned mid-flight at once, as 499, and once', async () => {
    const requestId = `req_${randomUUID().replaceAll('-', '')}`;
    const client = new AbortController();
    const sent = fetch(`${service.url}/v1/extract`, {
      method: 'POST',
      signal: client.signal,
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ url: `${site.url}/held`, options: { timeout: 20 } }),
    }).catch(() => 'abandoned');
    // The job is at work: the page was asked for, and is held.
    await eventually(async () => (asked === 1 ? true : undefined), 10_000);
    client.abort();
    expect(await sent).to.equal('abandoned');

    const [entry] = await eventually(async () => {
      const entries = await entriesOf(requestId);
      return entries.length > 0 ? entries : undefined;
    }, 5000).catch(() => {
      throw new Error('no audit entry while the abandoned request\'s job still runs');
    });
    expect(entry).to.deep.include({ request_id: requestId, endpoint: '/v1/extract', method: 'POST', status: 499 });
    expect(entry.response_time).to.be.a('number');
    expect(entry).to.not.have.property('error_code');

    // The job ends; its request is not recorded a second time.
    html(ARTICLE)(undefined as never, held.shift()!);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await entriesOf(requestId)).to.have.length(1);
  });
});
