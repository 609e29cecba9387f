import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { call, startTestService, TEST_KEY, type TestService } from './helpers/service.js';
import { createAccount, createKey, writePlansFile } from './helpers/accounts.js';
import { newSigningIdentity, samlResponse, type SigningIdentity } from './helpers/saml-idp.js';
import { until } from './helpers/wait.js';

/**
 * The console (docs/console.md) in Debian's Chromium, driven by playwright-core: signing in with
 * a key and through SSO, the keys page against the API it manages, the usage chart after known
 * traffic, the audit log filtered to a known request. Every page is checked with axe-core and
 * written as a screenshot under test-output/console/ for review. One browser for the file, a
 * context (cookie jar) per person.
 */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];
const SCREENSHOTS = path.resolve('test-output', 'console');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const IDP_ENTITY = 'https://idp.console.test/saml';

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** A datetime-local input's value for a time (the contexts run in UTC). */
function localInput(date: Date): string {
  return date.toISOString().slice(0, 16);
}

describe('console in a browser', function () {
  this.timeout(120_000);
  let service: TestService;
  let base: string;
  let browser: Browser;
  let accountId: string;
  let adminKey: string;
  let idp: SigningIdentity;
  let idpServer: http.Server;
  const memberEmail = 'grace@console.test';
  const contexts: BrowserContext[] = [];
  /** What a page reported that a strict policy or a bug would cause: CSP refusals, uncaught errors. */
  const pageProblems: string[] = [];

  before(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium is not installed at ${CHROMIUM}: the console's browser tests drive Debian's Chromium (apt-get install chromium; .ci/run installs it). No browser is downloaded.`);
    }
    mkdirSync(SCREENSHOTS, { recursive: true });
    idp = newSigningIdentity('idp.console.test');
    service = await startTestService({ PLANS_FILE: writePlansFile() });
    base = service.url;
    accountId = await createAccount(base, 'enterprise');
    adminKey = (await createKey(base, { account_id: accountId, permissions: ['admin'], name: 'console admin' })).key;

    const team = await call(base, '/v1/teams', { key: adminKey, body: { name: 'research' } });
    expect(team.status, JSON.stringify(team.json)).to.equal(200);
    const member = await call(base, `/v1/teams/${team.json.data.id}/members`, { key: adminKey, body: { email: memberEmail, role: 'developer' } });
    expect(member.status, JSON.stringify(member.json)).to.equal(200);
    const alert = await call(base, '/v1/alerts', { key: adminKey, body: { name: 'Errors', condition: 'error_rate > 50%', channels: ['webhook'], webhook: { url: 'http://127.0.0.1:9/hook' } } });
    expect(alert.status, JSON.stringify(alert.json)).to.equal(200);

    idpServer = await startIdentityProvider();
    const idpUrl = `http://127.0.0.1:${(idpServer.address() as AddressInfo).port}/sso`;
    const sso = await call(base, '/v1/sso', { key: adminKey, body: { provider: 'test idp', entity_id: IDP_ENTITY, sso_url: idpUrl, certificate: idp.cert } });
    expect(sso.status, JSON.stringify(sso.json)).to.equal(200);

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 });
  });

  after(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    idpServer?.close();
    await service?.close();
  });

  afterEach(() => {
    const problems = pageProblems.splice(0);
    expect(problems, 'the pages reported problems').to.deep.equal([]);
  });

  /**
   * A tiny identity provider: it reads the AuthnRequest of the SP-initiated sign-in and answers
   * as a real one does, with a page that posts the signed assertion (naming the request) to the
   * assertion consumer service. Its page is its own, so its inline script is no concern of the
   * console's policy.
   */
  function startIdentityProvider(): Promise<http.Server> {
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://idp');
      const request = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
      const requestId = /ID="([^"]+)"/.exec(request)?.[1];
      const acs = /AssertionConsumerServiceURL="([^"]+)"/.exec(request)?.[1];
      const audience = /<saml:Issuer[^>]*>([^<]+)</.exec(request)?.[1];
      if (!requestId || !acs || !audience) {
        res.writeHead(400).end('not an AuthnRequest');
        return;
      }
      const response = samlResponse({ issuer: IDP_ENTITY, email: memberEmail, audience, destination: acs, inResponseTo: requestId, signer: idp });
      const relay = url.searchParams.get('RelayState') ?? '';
      const escape = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
      res.writeHead(200, { 'content-type': 'text/html' }).end(
        `<!doctype html><title>IdP</title><form method="post" action="${escape(acs)}">` +
        `<input type="hidden" name="SAMLResponse" value="${escape(response)}"><input type="hidden" name="RelayState" value="${escape(relay)}"></form>` +
        '<script>document.forms[0].submit()</script>',
      );
    });
    return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
  }

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ timezoneId: 'UTC', locale: 'en-GB', viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) pageProblems.push(message.text());
    });
    page.on('pageerror', (error) => pageProblems.push(`uncaught: ${error.message}`));
    return page;
  }

  async function signInWithKey(page: Page, key: string): Promise<void> {
    await page.goto(`${base}/console`);
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Sign in with the key' }).click();
    await page.getByRole('navigation', { name: 'Console' }).waitFor();
  }

  async function openPage(page: Page, name: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { level: 1, name }).waitFor();
  }

  /** axe-core in the page (evaluated through the DevTools protocol, which the page's CSP does not govern): no serious or critical violation. */
  async function checkAccessibility(page: Page, name: string): Promise<void> {
    await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate(async () => {
      const result = await (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe.run();
      return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
    });
    const serious = violations.filter((v: AxeViolation) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious, `${name}: ${JSON.stringify(serious, null, 1)}`).to.deep.equal([]);
  }

  async function screenshot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }

  it('serves the console with a strict Content-Security-Policy and everything from this origin', async () => {
    const response = await fetch(`${base}/console/keys`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.include('text/html');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).to.include("default-src 'self'").and.include("script-src 'self'").and.include("frame-ancestors 'none'");
    expect(csp).to.not.include('unsafe-inline').and.not.include('unsafe-eval');
    expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
    const html = await response.text();
    expect(html).to.not.match(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.filter((a) => a.startsWith('/console/assets/'))).to.have.length(2);
    expect(assets.every((a) => a.startsWith('/') || a.startsWith('data:'))).to.equal(true);
    for (const asset of assets.filter((a) => a.startsWith('/console/assets/'))) {
      const file = await fetch(`${base}${asset}`);
      expect(file.status, asset).to.equal(200);
      expect(file.headers.get('cache-control')).to.include('immutable');
    }
    expect((await fetch(`${base}/console/assets/nope.js`)).status).to.equal(404);
    expect((await fetch(`${base}/console/keys`, { method: 'POST' })).status).to.equal(405);
  });

  it('signs in with an API key into a session cookie that scripts cannot read', async () => {
    const page = await newPage();
    await page.goto(`${base}/console`);
    await page.getByRole('heading', { level: 1, name: 'Sign in to the SEV console' }).waitFor();
    await checkAccessibility(page, 'sign-in');
    await screenshot(page, 'sign-in');

    await page.getByLabel('API key', { exact: true }).fill('sev_live_not_a_real_key_000000000000000');
    await page.getByRole('button', { name: 'Sign in with the key' }).click();
    await page.getByRole('alert').filter({ hasText: 'INVALID_API_KEY' }).waitFor();

    await signInWithKey(page, adminKey);
    expect(page.url()).to.equal(`${base}/console/keys`);
    const cookie = (await page.context().cookies()).find((c) => c.name === 'sev_session')!;
    expect(cookie).to.include({ httpOnly: true, sameSite: 'Strict', secure: false, path: '/' });
    expect(await page.evaluate(() => document.cookie)).to.not.include('sev_session');
    // A change without the session's CSRF token is refused, even with the cookie.
    const forged = await page.evaluate(async () => (await fetch('/v1/auth/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'forged' }) })).json());
    expect(forged.error.code).to.equal('CSRF_TOKEN_INVALID');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to the SEV console' }).waitFor();
    expect((await call(base, '/v1/session', { key: null, headers: { cookie: `sev_session=${cookie.value}` } })).status).to.equal(401);
  });

  it('creates a scoped key that works against the API, rotates it with the grace shown and revokes it', async () => {
    const page = await newPage();
    await signInWithKey(page, adminKey);
    await checkAccessibility(page, 'keys');

    const expires = new Date(Date.now() + 2 * 86_400_000);
    await page.getByLabel('Name', { exact: true }).fill('ci scoped');
    await page.getByLabel('Scoped: only the scopes chosen', { exact: true }).check();
    await page.getByRole('checkbox', { name: 'monitor' }).check();
    await page.getByLabel('Expires (optional)', { exact: true }).fill(localInput(expires));
    await page.getByLabel(/^Rate limit per minute/).fill('7');
    await page.getByRole('button', { name: 'Create the key' }).click();
    const secretBox = page.getByTestId('secret-once');
    await secretBox.waitFor();
    const secret = await page.getByLabel('Secret', { exact: true }).inputValue();
    expect(secret).to.match(/^sev_live_/);
    await checkAccessibility(page, 'keys with a secret shown');
    await screenshot(page, 'keys-secret-once');

    const whoami = await call(base, '/v1/auth/whoami', { key: secret });
    expect(whoami.status, JSON.stringify(whoami.json)).to.equal(200);
    expect(whoami.json.data.permissions).to.deep.equal(['monitor']);
    expect(whoami.json.data.rate_limit).to.equal(7);
    const made = (await call(base, `/v1/auth/keys/${whoami.json.data.key_id}`)).json.data;
    expect(made).to.include({ name: 'ci scoped', type: 'scoped', rate_limit: 7 });
    expect(Date.parse(made.expires_at)).to.equal(Date.parse(`${localInput(expires)}:00Z`));
    expect((await call(base, '/v1/usage', { key: secret })).status).to.equal(200);
    const outside = await call(base, '/v1/search', { key: secret, body: { query: 'solar panels' } });
    expect(outside.status).to.equal(403);
    expect(outside.json.error.code).to.equal('INSUFFICIENT_PERMISSIONS');

    // Once dismissed, the secret is nowhere in the page.
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await secretBox.waitFor({ state: 'detached' });
    expect(await page.content()).to.not.include(secret);
    const row = page.locator('tr', { has: page.getByRole('rowheader', { name: 'ci scoped' }) });
    expect(await row.textContent()).to.include('monitor').and.include('7/min');

    await page.getByRole('button', { name: 'Rotate ci scoped' }).click();
    await page.getByRole('heading', { name: 'New secret of ci scoped' }).waitFor();
    const rotated = await page.getByLabel('Secret', { exact: true }).inputValue();
    expect(rotated).to.not.equal(secret);
    const grace = await page.getByTestId('grace').textContent();
    expect(grace).to.include('24 hours');
    const graceEnd = await page.getByTestId('grace').locator('time').getAttribute('datetime');
    expect(Date.parse(graceEnd!) - Date.now()).to.be.within(23.9 * 3_600_000, 24 * 3_600_000);
    await screenshot(page, 'keys-rotated');
    expect((await call(base, '/v1/auth/whoami', { key: rotated })).status).to.equal(200);
    expect((await call(base, '/v1/auth/whoami', { key: secret })).status, 'the old secret works during the grace').to.equal(200);
    await page.getByRole('button', { name: 'I have copied it' }).click();

    await page.getByRole('button', { name: 'Revoke ci scoped…' }).click();
    await page.getByRole('button', { name: 'Revoke now' }).click();
    await page.getByRole('status').filter({ hasText: 'ci scoped is revoked' }).waitFor();
    await row.locator('.badge', { hasText: 'revoked' }).waitFor();
    for (const refused of [rotated, secret]) {
      const answer = await call(base, '/v1/auth/whoami', { key: refused });
      expect(answer.status).to.equal(401);
      expect(answer.json.error.code).to.equal('INVALID_API_KEY');
    }

    // A revocation at a time: the key works until then, and the page says when it stops.
    await page.getByLabel('Name', { exact: true }).fill('ci later');
    await page.getByLabel('Standard: every scope', { exact: true }).check();
    await page.getByRole('button', { name: 'Create the key' }).click();
    const later = await page.getByLabel('Secret', { exact: true }).inputValue();
    await page.getByRole('button', { name: 'I have copied it' }).click();
    const at = new Date(Date.now() + 3_600_000);
    await page.getByRole('button', { name: 'Revoke ci later…' }).click();
    await page.getByLabel('At a time', { exact: true }).check();
    await page.getByLabel('Revoke at', { exact: true }).fill(localInput(at));
    await page.getByRole('button', { name: 'Schedule the revocation' }).click();
    const laterRow = page.locator('tr', { has: page.getByRole('rowheader', { name: 'ci later' }) });
    await laterRow.filter({ hasText: 'revokes at' }).waitFor();
    const stillWorks = await call(base, '/v1/auth/whoami', { key: later });
    expect(stillWorks.status, 'a key revoked later works until then').to.equal(200);
    const scheduled = (await call(base, `/v1/auth/keys/${stillWorks.json.data.key_id}`)).json.data;
    expect(Date.parse(scheduled.revoke_at)).to.equal(Date.parse(`${localInput(at)}:00Z`));
    await screenshot(page, 'keys');
  });

  it('draws the usage chart of known traffic', async () => {
    const quiet = await createAccount(base, 'enterprise');
    const key = (await createKey(base, { account_id: quiet, permissions: ['admin'], name: 'usage' })).key;
    for (let i = 0; i < 5; i++) expect((await call(base, '/v1/auth/whoami', { key })).status).to.equal(200);
    for (let i = 0; i < 3; i++) expect((await call(base, '/v1/search', { key, body: { query: 'solar panels', max_results: 500 } })).status).to.equal(400);
    // The usage endpoint reads rollups written within a second or two: wait for them with the master key (not counted in the account).
    await until(async () => {
      const usage = await call(base, `/v1/usage?account_id=${quiet}&period=day&breakdown=hour`, { key: TEST_KEY });
      return usage.json.data?.endpoint_usage?.['/v1/search']?.requests === 3 && usage.json.data.endpoint_usage['/v1/auth/whoami']?.requests === 5;
    }, 20_000);

    const page = await newPage();
    await signInWithKey(page, key);
    await openPage(page, 'Usage');
    const figures = page.getByTestId('usage-figures');
    await figures.waitFor();
    // The console's own calls all succeed: the errors are the three refused searches, exactly.
    expect(await figures.locator('[data-figure="errors"]').textContent()).to.equal('3');
    const requests = Number(await figures.locator('[data-figure="requests"]').textContent());
    expect(requests).to.be.at.least(8);
    const chartTitle = await page.locator('#chart-requests svg > title').textContent();
    expect(chartTitle).to.equal(`Requests and errors per hour: ${requests} requests, 3 errors`);
    const hour = `${new Date().toISOString().slice(11, 13)}h`;
    const bars = await page.locator('#chart-requests rect title').allTextContents();
    expect(bars).to.include(`${hour}: 3 errors`);
    expect(bars.filter((t) => t.endsWith(' requests')).map((t) => Number(/: (\d+) requests$/.exec(t)![1])).reduce((a, b) => a + b, 0)).to.equal(requests);
    const searchRow = page.locator('tr', { has: page.getByRole('rowheader', { name: '/v1/search' }) });
    expect((await searchRow.locator('td').allTextContents()).slice(0, 1)).to.deep.equal(['3']);
    expect(await page.getByTestId('quota').textContent()).to.match(/requests this month/);
    await checkAccessibility(page, 'usage');
    await screenshot(page, 'usage');

    await page.getByLabel('Period', { exact: true }).selectOption('month');
    await page.locator('#chart-requests svg > title').filter({ hasText: 'per day' }).waitFor({ state: 'attached' });
    expect(await figures.locator('[data-figure="errors"]').textContent()).to.equal('3');
  });

  it('filters the audit log to a known request and shows its detail, a page at a time', async () => {
    const known = await call(base, '/v1/auth/whoami', { key: adminKey, headers: { 'user-agent': 'audit-probe/1.0' } });
    const requestId = known.headers.get('x-request-id')!;
    await until(async () => (await call(base, `/v1/audit?account_id=${accountId}&request_id=${requestId}`)).json.data?.pagination.total === 1, 20_000);

    const page = await newPage();
    await signInWithKey(page, adminKey);
    await openPage(page, 'Audit log');
    await page.getByTestId('audit-table').waitFor();
    await page.getByLabel('Request ID', { exact: true }).fill(requestId);
    await page.getByRole('button', { name: 'Apply the filters' }).click();
    await page.getByTestId('audit-range').filter({ hasText: 'of 1,' }).waitFor();
    const rows = page.getByTestId('audit-table').locator('tbody tr');
    expect(await rows.count()).to.equal(1);
    await page.getByRole('button', { name: `Details of request ${requestId}` }).click();
    const detail = page.getByTestId('request-detail');
    expect(await detail.locator('[data-field="endpoint"]').textContent()).to.equal('/v1/auth/whoami');
    expect(await detail.locator('[data-field="status"]').textContent()).to.equal('200');
    expect(await detail.locator('[data-field="user_agent"]').textContent()).to.equal('audit-probe/1.0');
    await checkAccessibility(page, 'audit');
    await screenshot(page, 'audit');

    // Every request of the account, ten a page: the second page starts at the eleventh.
    await page.getByLabel('Request ID', { exact: true }).fill('');
    await page.getByLabel('Per page', { exact: true }).selectOption('10');
    await page.getByRole('button', { name: 'Apply the filters' }).click();
    await page.getByTestId('audit-range').filter({ hasText: 'Requests 1–10 of' }).waitFor();
    await page.getByRole('button', { name: 'Older' }).click();
    await page.getByTestId('audit-range').filter({ hasText: 'Requests 11–' }).waitFor();
    await page.getByRole('button', { name: 'Newer' }).click();
    await page.getByTestId('audit-range').filter({ hasText: 'Requests 1–10 of' }).waitFor();
  });

  it('shows alerts, the team and the SSO settings, each keyboard-reachable and accessible', async () => {
    const page = await newPage();
    await signInWithKey(page, adminKey);
    // The navigation is reachable with the keyboard alone: on a page loaded afresh, the skip link first, then the pages.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).to.equal('Skip to content');
    for (const [name, shot] of [['Alerts', 'alerts'], ['Team', 'team'], ['Single sign-on', 'sso']] as const) {
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name }).waitFor();
      expect(await page.evaluate(() => document.activeElement?.tagName)).to.equal('H1');
      if (name === 'Alerts') {
        await page.getByRole('button', { name: 'Deliveries of Errors' }).click();
        await page.getByRole('heading', { name: 'Deliveries of Errors' }).waitFor();
      }
      if (name === 'Team') await page.getByRole('rowheader', { name: memberEmail }).waitFor();
      if (name === 'Single sign-on') await page.getByText(IDP_ENTITY).waitFor();
      await checkAccessibility(page, shot);
      await screenshot(page, shot);
    }
  });

  it('signs a member in through SSO with a signed assertion, showing the pages of its role', async () => {
    const page = await newPage();
    await page.goto(`${base}/console/sign-in?account=${accountId}`);
    expect(await page.getByLabel('Account ID', { exact: true }).inputValue()).to.equal(accountId);
    await page.getByRole('button', { name: 'Sign in with SSO' }).click();
    await page.waitForURL(`${base}/console/keys`);
    await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
    expect(await page.getByTestId('who').textContent()).to.include(`${memberEmail} (developer)`);
    const nav = await page.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents();
    expect(nav).to.deep.equal(['Keys', 'Usage', 'Audit log', 'Alerts']);
    const session = await page.evaluate(async () => (await fetch('/v1/session')).json());
    expect(session.data).to.include({ kind: 'member', via: 'sso', account_id: accountId });
    await checkAccessibility(page, 'keys (SSO member)');
    await screenshot(page, 'sso-member-keys');
  });
});
