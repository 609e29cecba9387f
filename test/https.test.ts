import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { call, startTestService, TEST_KEY, type TestService } from './helpers/service.js';

describe('HTTPS', () => {
  describe('served by the service itself', () => {
    let dir: string;
    let service: TestService;
    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'sev-tls-'));
      execFileSync('openssl', [
        'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
        '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
      ], { stdio: 'ignore' });
      service = await startTestService({
        TLS_CERT_FILE: path.join(dir, 'cert.pem'),
        TLS_KEY_FILE: path.join(dir, 'key.pem'),
        REQUIRE_HTTPS: 'true',
      });
    });
    after(async () => {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('answers over TLS', async () => {
      expect(service.url).to.match(/^https:\/\//);
      const body = await new Promise<any>((resolve, reject) => {
        const req = request(`${service.url}/v1/health`, { headers: { authorization: `Bearer ${TEST_KEY}` }, rejectUnauthorized: false }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve(JSON.parse(text)));
        });
        req.on('error', reject);
        req.end();
      });
      expect(body.success).to.equal(true);
      expect(body.data.status).to.equal('healthy');
    });
  });

  describe('required behind a proxy', () => {
    let direct: TestService;
    let proxied: TestService;
    before(async () => {
      direct = await startTestService({ REQUIRE_HTTPS: 'true' });
      proxied = await startTestService({ REQUIRE_HTTPS: 'true', TRUSTED_PROXIES: '127.0.0.1' });
    });
    after(async () => {
      await direct.close();
      await proxied.close();
    });

    it('refuses plain HTTP with HTTPS_REQUIRED', async () => {
      const res = await call(direct.url, '/v1/health');
      expect(res.status).to.equal(403);
      expect(res.json.error.code).to.equal('HTTPS_REQUIRED');
      expect(res.json.error.details).to.deep.equal({ scheme: 'http' });
    });

    it('ignores X-Forwarded-Proto from a peer that is not a trusted proxy', async () => {
      const res = await call(direct.url, '/v1/health', { headers: { 'x-forwarded-proto': 'https' } });
      expect(res.status).to.equal(403);
    });

    it('believes X-Forwarded-Proto from a trusted proxy', async () => {
      expect((await call(proxied.url, '/v1/health', { headers: { 'x-forwarded-proto': 'https' } })).status).to.equal(200);
      expect((await call(proxied.url, '/v1/health', { headers: { 'x-forwarded-proto': 'http' } })).status).to.equal(403);
    });

    it('keeps the probes reachable over plain HTTP for orchestrators', async () => {
      expect((await call(direct.url, '/livez', { key: null })).status).to.equal(200);
      expect((await call(direct.url, '/readyz', { key: null })).status).to.equal(200);
    });
  });
});
