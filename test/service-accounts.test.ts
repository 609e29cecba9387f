import { expect } from 'chai';
import { call, startTestService, type TestService } from './helpers/service.js';
import { createAccount, writePlansFile } from './helpers/accounts.js';

describe('service accounts', () => {
  // One service behind a trusted proxy (X-Forwarded-For believed from 127.0.0.1), one on the
  // IPv6 loopback that trusts nobody, so the client address comes from the socket.
  let proxied: TestService;
  let direct: TestService;
  let enterprise: string;

  before(async () => {
    const plans = writePlansFile();
    proxied = await startTestService({ PLANS_FILE: plans, TRUSTED_PROXIES: '127.0.0.1' }, 'api');
    direct = await startTestService({ PLANS_FILE: plans, HOST: '::1', QUEUE_PREFIX: proxied.config.queuePrefix }, 'api');
    enterprise = await createAccount(proxied.url, 'enterprise');
  });
  after(async () => {
    await direct.close();
    await proxied.close();
  });

  async function createServiceAccount(ipAllowlist: string[]): Promise<any> {
    const response = await call(proxied.url, '/v1/auth/service-accounts', {
      body: { name: 'ingest', environment: 'production', rate_limit: 100, ip_allowlist: ipAllowlist, account_id: enterprise },
    });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    return response.json.data;
  }

  const health = (service: TestService, key: string, forwardedFor?: string) =>
    call(service.url, '/v1/health', { key, ...(forwardedFor ? { headers: { 'x-forwarded-for': forwardedFor } } : {}) });

  it('is a feature of the highest plan only', async () => {
    const pro = await createAccount(proxied.url, 'pro');
    const response = await call(proxied.url, '/v1/auth/service-accounts', { body: { name: 'x', environment: 'staging', account_id: pro } });
    expect(response.status).to.equal(403);
    expect(response.json.error.details).to.deep.equal({ feature: 'service_accounts', required_plan: 'enterprise', current_plan: 'pro' });
  });

  it('returns its record with the secret once, and lists it', async () => {
    const data = await createServiceAccount(['10.0.0.0/8', '2001:db8::/32']);
    expect(data).to.include({ type: 'service_account', environment: 'production', rate_limit: 100, status: 'active', account_id: enterprise });
    expect(data.id).to.match(/^sa_/);
    expect(data.key).to.match(/^sev_live_/);
    expect(data.ip_allowlist).to.deep.equal(['10.0.0.0/8', '2001:db8::/32']);
    const listed = (await call(proxied.url, `/v1/auth/service-accounts?account_id=${enterprise}`)).json.data.items;
    expect(listed.map((a: any) => a.id)).to.include(data.id);
    expect(listed.every((a: any) => a.type === 'service_account' && !('key' in a))).to.equal(true);
  });

  it('refuses an empty ip_allowlist, which would admit no address; without one, any address may call', async () => {
    const body = { name: 'nowhere', environment: 'production', account_id: enterprise };
    const refused = await call(proxied.url, '/v1/auth/service-accounts', { body: { ...body, ip_allowlist: [] } });
    expect(refused.status).to.equal(400);
    expect(refused.json.error).to.deep.include({ code: 'INVALID_PARAMETER' });
    expect(refused.json.error.details).to.deep.include({ parameter: 'ip_allowlist', reason: 'must contain at least 1 item' });
    const open = await call(proxied.url, '/v1/auth/service-accounts', { body });
    expect(open.status, JSON.stringify(open.json)).to.equal(200);
    expect((await health(proxied, open.json.data.key, '192.0.2.7')).status).to.equal(200);
  });

  it('refuses an IPv4 client outside the allowlist with IP_NOT_ALLOWED', async () => {
    const { key } = await createServiceAccount(['10.0.0.0/8']);
    const refused = await health(proxied, key);
    expect(refused.status).to.equal(403);
    expect(refused.json.error).to.deep.include({ code: 'IP_NOT_ALLOWED', details: { client_ip: '127.0.0.1' } });
    expect((await health(proxied, key, '10.20.30.40')).status).to.equal(200);
    expect((await health(proxied, key, '192.0.2.1')).json.error.details.client_ip).to.equal('192.0.2.1');
  });

  it('matches IPv6 ranges, from a forwarded address and from a real IPv6 socket', async () => {
    const { key } = await createServiceAccount(['2001:db8::/32', '::1/128']);
    expect((await health(proxied, key, '2001:db8:0:1::7')).status).to.equal(200);
    const outside = await health(proxied, key, '2001:db9::1');
    expect(outside.status).to.equal(403);
    expect(outside.json.error.details.client_ip).to.equal('2001:db9::1');
    expect((await health(direct, key)).status).to.equal(200);
    expect((await health(proxied, key)).status).to.equal(403); // 127.0.0.1 is not in the list
  });

  it('believes X-Forwarded-For only from a trusted proxy', async () => {
    const { key } = await createServiceAccount(['10.0.0.0/8']);
    const forged = await health(direct, key, '10.1.2.3');
    expect(forged.status).to.equal(403);
    expect(forged.json.error.details.client_ip).to.equal('::1');
  });

  it('is managed through the key paths: rotation and revocation', async () => {
    const { id, key } = await createServiceAccount(['127.0.0.1/32']);
    expect((await health(proxied, key)).status).to.equal(200);
    const rotated = await call(proxied.url, `/v1/auth/keys/${id}/rotate`, { method: 'POST' });
    expect((await health(proxied, rotated.json.data.new_key)).status).to.equal(200);
    await call(proxied.url, `/v1/auth/keys/${id}/revoke`, { method: 'POST' });
    expect((await health(proxied, rotated.json.data.new_key)).status).to.equal(401);
    expect((await health(direct, key)).status).to.equal(401);
  });
});
