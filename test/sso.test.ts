import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { call, startTestService, type CallResult, type TestService } from './helpers/service.js';
import { createAccount, createKey, writePlansFile } from './helpers/accounts.js';
import { newSigningIdentity, samlResponse, type AssertionOptions, type SigningIdentity } from './helpers/saml-idp.js';

const IDP_ENTITY = 'https://idp.example.test/saml';
const IDP_SSO_URL = 'https://idp.example.test/sso';

describe('single sign-on (SAML 2.0)', function () {
  this.timeout(60_000);
  let service: TestService;
  let base: string;
  let accountId: string;
  let admin: string;
  let idp: SigningIdentity;
  let impostor: SigningIdentity;
  let sp: { entity_id: string; acs_url: string; metadata_url: string; login_url: string };
  const memberEmail = 'alan@example.test';
  let memberId: string;

  before(async () => {
    idp = newSigningIdentity('idp.example.test');
    impostor = newSigningIdentity('idp.example.test');
    service = await startTestService({ PLANS_FILE: writePlansFile() }, 'api');
    base = service.url;
    accountId = await createAccount(base, 'enterprise');
    admin = (await createKey(base, { account_id: accountId, permissions: ['admin'] })).key;
    const team = await call(base, '/v1/teams', { key: admin, body: { name: 'engineering' } });
    const member = await call(base, `/v1/teams/${team.json.data.id}/members`, { key: admin, body: { email: memberEmail, role: 'developer' } });
    memberId = member.json.data.id;
    const configured = await call(base, '/v1/sso', {
      key: admin, body: { provider: 'keycloak', entity_id: IDP_ENTITY, sso_url: IDP_SSO_URL, certificate: idp.cert },
    });
    expect(configured.status, JSON.stringify(configured.json)).to.equal(200);
    sp = configured.json.data.service_provider;
  });
  after(async () => {
    await service?.close();
  });

  /** Posts a SAML response to the account's ACS as a browser does: an HTML form. */
  function post(response: string, relayState?: string, account = accountId): Promise<Response> {
    const form = new URLSearchParams({ SAMLResponse: response, ...(relayState !== undefined ? { RelayState: relayState } : {}) });
    return fetch(`${base}/v1/sso/${account}/acs`, { method: 'POST', body: form, redirect: 'manual' });
  }

  function assertion(overrides: Partial<AssertionOptions> = {}): string {
    return samlResponse({ issuer: IDP_ENTITY, email: memberEmail, audience: sp.entity_id, destination: sp.acs_url, signer: idp, ...overrides });
  }

  async function expectRefused(response: Response, reason: string): Promise<void> {
    const body = await response.json() as any;
    expect(response.status, JSON.stringify(body)).to.equal(401);
    expect(body.error.code).to.equal('SSO_ASSERTION_INVALID');
    expect(body.error.details.reason, body.error.message).to.equal(reason);
    expect(response.headers.getSetCookie()).to.deep.equal([]);
  }

  describe('configuration', () => {
    it('reads the configuration back with the service provider\'s addresses and the certificate\'s fingerprint', async () => {
      const read = await call(base, '/v1/sso', { key: admin });
      expect(read.status).to.equal(200);
      expect(read.json.data).to.include({ account_id: accountId, provider: 'keycloak', entity_id: IDP_ENTITY, sso_url: IDP_SSO_URL });
      expect(read.json.data.certificate_fingerprint).to.equal(new X509Certificate(idp.cert).fingerprint256);
      expect(sp).to.deep.equal({
        entity_id: `${base}/v1/sso/${accountId}/metadata`, acs_url: `${base}/v1/sso/${accountId}/acs`,
        metadata_url: `${base}/v1/sso/${accountId}/metadata`, login_url: `${base}/v1/sso/${accountId}/login`,
      });
    });

    it('serves the service provider metadata without a key', async () => {
      const response = await fetch(sp.metadata_url);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.include('application/samlmetadata+xml');
      const xml = await response.text();
      expect(xml).to.include(`entityID="${sp.entity_id}"`);
      expect(xml).to.include(`Location="${sp.acs_url}"`);
      expect(xml).to.include('WantAssertionsSigned="true"');
      expect((await fetch(`${base}/v1/sso/acct_nope/metadata`)).status).to.equal(404);
    });

    it('refuses a certificate that is not one, and callers that are not admins', async () => {
      const bad = await call(base, '/v1/sso', { key: admin, body: { provider: 'x', entity_id: 'x', sso_url: 'https://x.test/', certificate: 'not a certificate' } });
      expect(bad.status).to.equal(400);
      expect(bad.json.error.details.parameter).to.equal('certificate');
      const developer = (await createKey(base, { account_id: accountId, member_id: memberId })).key;
      const refused = await call(base, '/v1/sso', { key: developer });
      expect(refused.status).to.equal(403);
      expect(refused.json.error.details.required_permission).to.equal('admin:sso');
      const other = await createAccount(base, 'enterprise');
      const otherAdmin = (await createKey(base, { account_id: other, permissions: ['admin'] })).key;
      expect((await call(base, '/v1/sso', { key: otherAdmin })).status).to.equal(404);
    });
  });

  describe('assertion consumer service', () => {
    it('accepts a valid signed assertion, maps the address to the member and starts its session', async () => {
      const response = await post(assertion({ email: 'Alan@Example.test' }), '/console/keys');
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.include('text/html');
      expect(response.headers.get('content-security-policy')).to.include("default-src 'none'");
      const page = await response.text();
      expect(page).to.include('<meta http-equiv="refresh" content="0; url=/console/keys">');
      const cookieLine = response.headers.getSetCookie().find((c) => c.startsWith('sev_session='))!;
      expect(cookieLine).to.include('HttpOnly').and.include('SameSite=Strict');
      const cookie = cookieLine.split(';')[0]!;

      const session = await call(base, '/v1/session', { key: null, headers: { cookie } });
      expect(session.status).to.equal(200);
      expect(session.json.data).to.include({ kind: 'member', via: 'sso', account_id: accountId });
      expect(session.json.data.member).to.include({ id: memberId, email: memberEmail, role: 'developer' });
      // A developer's session: its own keys, no teams.
      const made = await call(base, '/v1/auth/keys', { key: null, headers: { cookie, 'x-csrf-token': session.json.data.csrf_token }, body: { name: 'sso key' } });
      expect(made.status, JSON.stringify(made.json)).to.equal(200);
      expect(made.json.data.member_id).to.equal(memberId);
      expect((await call(base, '/v1/teams', { key: null, headers: { cookie } })).status).to.equal(403);
    });

    it('lands on /console for a RelayState that is not a local path', async () => {
      for (const relay of ['https://evil.test/', '//evil.test/x', '/\\evil.test']) {
        const page = await (await post(assertion(), relay)).text();
        expect(page, relay).to.include('url=/console"');
      }
    });

    it('refuses an assertion signed with another key', async () => {
      await expectRefused(await post(assertion({ signer: impostor })), 'invalid_signature');
    });

    it('counts a refused assertion as a failed authentication of the address', async () => {
      const first = await post(assertion({ signer: impostor }));
      const second = await post(assertion({ signer: impostor }));
      expect(first.headers.get('x-ratelimit-limit')).to.equal('60');
      expect(Number(second.headers.get('x-ratelimit-remaining'))).to.equal(Number(first.headers.get('x-ratelimit-remaining')) - 1);
    });

    it('refuses an assertion changed after it was signed', async () => {
      const tampered = assertion({ email: 'somebody@example.test', tamper: (xml) => xml.replace('somebody@example.test', memberEmail) });
      await expectRefused(await post(tampered), 'invalid_signature');
    });

    it('refuses an expired assertion', async () => {
      const past = new Date(Date.now() - 10 * 60_000);
      await expectRefused(await post(assertion({ notBefore: new Date(past.getTime() - 60_000), notOnOrAfter: past })), 'outside_time_window');
    });

    it('refuses an assertion that is not valid yet', async () => {
      const later = new Date(Date.now() + 10 * 60_000);
      await expectRefused(await post(assertion({ notBefore: later, notOnOrAfter: new Date(later.getTime() + 60_000) })), 'outside_time_window');
    });

    it('refuses an assertion for another audience', async () => {
      await expectRefused(await post(assertion({ audience: 'https://other-sp.test/metadata' })), 'wrong_audience');
    });

    it('refuses an assertion addressed elsewhere', async () => {
      await expectRefused(await post(assertion({ destination: 'https://other-sp.test/acs' })), 'wrong_destination');
      await expectRefused(await post(assertion({ recipient: 'https://other-sp.test/acs' })), 'wrong_destination');
    });

    it('refuses an assertion from another issuer', async () => {
      await expectRefused(await post(assertion({ issuer: 'https://impostor.test/saml' })), 'wrong_issuer');
    });

    it('refuses an assertion used a second time', async () => {
      const once = assertion();
      expect((await post(once)).status).to.equal(200);
      await expectRefused(await post(once), 'replayed');
    });

    it('refuses an address that is no member of the account', async () => {
      await expectRefused(await post(assertion({ email: 'stranger@example.test' })), 'unknown_member');
    });

    it('refuses a form without a SAML response, and JSON', async () => {
      const empty = await fetch(`${base}/v1/sso/${accountId}/acs`, { method: 'POST', body: new URLSearchParams({ RelayState: '/x' }) });
      expect(empty.status).to.equal(400);
      const json = await call(base, `/v1/sso/${accountId}/acs`, { key: null, body: { SAMLResponse: 'x' } });
      expect(json.status).to.equal(415);
    });
  });

  describe('SP-initiated sign-in', () => {
    it('redirects to the identity provider with an AuthnRequest whose id the answer must name', async () => {
      const login = await fetch(`${sp.login_url}?return_to=/console/usage`, { redirect: 'manual' });
      expect(login.status).to.equal(302);
      const location = new URL(login.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).to.equal(IDP_SSO_URL);
      expect(location.searchParams.get('RelayState')).to.equal('/console/usage');
      const request = inflateRawSync(Buffer.from(location.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
      expect(request).to.include(`AssertionConsumerServiceURL="${sp.acs_url}"`);
      expect(request).to.include(`<saml:Issuer`).and.include(sp.entity_id);
      const requestId = /ID="([^"]+)"/.exec(request)![1]!;

      await expectRefused(await post(assertion({ inResponseTo: '_not_a_request_we_sent' })), 'unknown_request');
      const answered = await post(assertion({ inResponseTo: requestId }), '/console/usage');
      expect(answered.status).to.equal(200);
      expect(await answered.text()).to.include('url=/console/usage');
    });
  });

  describe('removal', () => {
    it('stops sign-ins when the configuration is deleted', async () => {
      const removed = await call(base, '/v1/sso', { key: admin, method: 'DELETE' });
      expect(removed.json.data).to.deep.equal({ account_id: accountId, deleted: true });
      const refused: CallResult = await call(base, '/v1/sso', { key: admin });
      expect(refused.status).to.equal(404);
      expect((await post(assertion())).status).to.equal(404);
      expect((await fetch(sp.login_url, { redirect: 'manual' })).status).to.equal(404);
    });
  });
});
