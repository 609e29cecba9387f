import { expect } from 'chai';
import { call, startTestService, type TestService } from '../helpers/service.js';

/**
 * Defects the fuzzer found beyond the ones it was built for, each as the request that showed it
 * and the answer a client should get instead of a 500.
 */
const FINDINGS: { what: string; method?: string; path: string; status: number; code: string }[] = [
  // Alert ids are ASCII, as their column is: MySQL refused to compare other text with it.
  { what: 'an alert id outside ASCII', path: `/v1/alerts/${encodeURIComponent("'; DROP TABLE x;--é中")}`, status: 404, code: 'NOT_FOUND' },
  { what: 'testing an alert whose id is outside ASCII', method: 'POST', path: `/v1/alerts/${encodeURIComponent('中')}/test`, status: 404, code: 'NOT_FOUND' },
  // Account ids likewise, in every filter that takes one.
  { what: 'an account filter outside ASCII (errors)', path: '/v1/errors?account_id=%C0%AF', status: 400, code: 'INVALID_PARAMETER' },
  { what: 'an account filter outside ASCII (alerts)', path: '/v1/alerts?account_id=%E4%B8%AD', status: 400, code: 'INVALID_PARAMETER' },
  { what: 'an account filter outside ASCII (usage)', path: '/v1/usage?account_id=%E4%B8%AD', status: 400, code: 'INVALID_PARAMETER' },
];

describe('resilience: what the fuzzer found', function () {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(async () => {
    await service?.close();
  });

  for (const finding of FINDINGS) {
    it(`answers ${finding.what} with ${finding.status} ${finding.code}`, async () => {
      const res = await call(service.url, finding.path, { method: finding.method ?? 'GET' });
      expect([res.status, res.json.error?.code]).to.deep.equal([finding.status, finding.code]);
    });
  }
});
