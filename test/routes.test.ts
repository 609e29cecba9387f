import { expect } from 'chai';
import { ROUTES } from '../src/http/routes/index.js';
import { call, startTestService, type TestService } from './helpers/service.js';

describe('GET /v1/openapi.json', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('documents every route the service serves, and nothing else', async () => {
    const res = await call(service.url, '/v1/openapi.json', { key: null });
    expect(res.status).to.equal(200);
    const doc = res.json;
    expect(doc.openapi).to.match(/^3\.1\./);
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) =>
      Object.keys(ops).filter((m) => m !== 'parameters').map((m) => `${m.toUpperCase()} ${p}`),
    );
    const served = ROUTES.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(documented.sort()).to.deep.equal(served.sort());
  });

  it('answers every documented public route without a key', async () => {
    // Routes with path parameters (an account's SSO metadata and sign-in) are tried in their own tests.
    for (const route of ROUTES.filter((r) => !r.scope && r.method === 'GET' && !r.path.includes(':'))) {
      const res = await fetch(`${service.url}${route.path}`);
      expect(res.status, route.path).to.equal(200);
    }
  });

  it('serves the error catalogue that documentation links point to', async () => {
    const res = await call(service.url, '/docs/errors', { key: null });
    const codes = res.json.errors.map((e: { code: string }) => e.code);
    expect(codes).to.include.members(['INVALID_JSON', 'RATE_LIMITED', 'NOT_FOUND', 'SERVICE_UNAVAILABLE']);
  });
});
