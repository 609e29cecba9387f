import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { call, startTestService, testEnv, type TestService } from './helpers/service.js';
import { createAccount, createKey } from './helpers/accounts.js';
import { freshDatabase } from './helpers/run-scope.js';
import { eventually, until } from './helpers/wait.js';
import { startHookReceiver, type HookReceiver } from './helpers/hook-receiver.js';
import { startSmtpServer, type LocalSmtp } from './helpers/smtp-server.js';
import { simpleParser } from 'mailparser';
import { verifySignature } from '../src/notify/signature.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { openStorage } from '../src/storage/connection.js';

/** Evaluation every second and quick retries, so a lifecycle takes seconds. */
const FAST = { ALERT_EVAL_INTERVAL_MS: '1000', NOTIFY_RETRY_BASE_MS: '100', NOTIFY_MAX_ATTEMPTS: '3' };

/** Requests the key makes that fail (400: max_results out of range) and that succeed. */
async function traffic(base: string, key: string, failed: number, succeeded: number): Promise<void> {
  for (let i = 0; i < failed; i++) {
    expect((await call(base, '/v1/search', { key, body: { query: 'alert traffic', max_results: 500 } })).status).to.equal(400);
  }
  for (let i = 0; i < succeeded; i++) expect((await call(base, '/v1/auth/whoami', { key })).status).to.equal(200);
}

function definition(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'Errors', condition: 'error_rate > 0.5', channels: ['webhook'], webhook: { url: 'http://127.0.0.1:9/hook' }, ...overrides };
}

describe('alerts', function () {
  this.timeout(90_000);
  let service: TestService;
  let account: string;
  let key: string;
  let sandboxKey: string;
  let otherKey: string;
  let hooks: HookReceiver;
  let slack: HookReceiver;
  let smtp: LocalSmtp;

  before(async () => {
    smtp = await startSmtpServer();
    service = await startTestService({ DATABASE_URL: await freshDatabase('alerts'), ...FAST, ...smtp.env });
    account = await createAccount(service.url, 'pro');
    key = (await createKey(service.url, { account_id: account })).key;
    sandboxKey = (await createKey(service.url, { account_id: account, mode: 'test' })).key;
    otherKey = (await createKey(service.url, { account_id: await createAccount(service.url, 'pro') })).key;
    hooks = await startHookReceiver();
    slack = await startHookReceiver();
  });
  after(async () => {
    await service.close();
    await hooks.close();
    await slack.close();
    await smtp.close();
  });

  describe('definitions', () => {
    it('are created, listed, read, replaced and deleted, each key seeing only its own account\'s in its own mode', async () => {
      const created = await call(service.url, '/v1/alerts', {
        key,
        body: definition({
          condition: 'error_rate > 5%', duration: '5m', severity: 'critical', scope: { endpoint: '/v1/search' },
          webhook: { url: `${hooks.url}/a`, payload_template: '{"text": "{{alert_name}}: {{message}}", "figures": {{metrics}}}' },
        }),
      });
      expect(created.status, JSON.stringify(created.json)).to.equal(200);
      const alert = created.json.data;
      expect(alert).to.include({ name: 'Errors', condition: 'error_rate > 5%', metric: 'error_rate', comparator: '>', threshold: 0.05, duration: '5m', duration_seconds: 300, severity: 'critical', enabled: true });
      expect(alert.alert_id).to.match(/^alrt_/);
      expect(alert.scope).to.deep.equal({ account_id: account, mode: 'live', endpoint: '/v1/search' });
      expect(alert.webhook.signing_secret).to.match(/^whsec_/);
      expect(alert.state).to.deep.equal({ status: 'inactive', since: null, value: null, evaluated_at: null });

      const mine = (await call(service.url, '/v1/alerts', { key })).json.data;
      expect(mine.items.map((a: any) => a.alert_id)).to.deep.equal([alert.alert_id]);
      expect(mine.total).to.equal(1);
      expect((await call(service.url, '/v1/alerts', { key: otherKey })).json.data.total).to.equal(0);
      expect((await call(service.url, '/v1/alerts', { key: sandboxKey })).json.data.total).to.equal(0);
      for (const stranger of [otherKey, sandboxKey]) {
        const read = await call(service.url, `/v1/alerts/${alert.alert_id}`, { key: stranger });
        expect(read.status).to.equal(404);
        expect(read.json.error.code).to.equal('NOT_FOUND');
        expect((await call(service.url, `/v1/alerts/${alert.alert_id}`, { key: stranger, method: 'DELETE' })).status).to.equal(404);
      }
      expect((await call(service.url, `/v1/alerts/${alert.alert_id}`)).json.data.alert_id).to.equal(alert.alert_id);
      expect((await call(service.url, `/v1/alerts?account_id=${account}`)).json.data.total).to.equal(1);

      const replaced = await call(service.url, `/v1/alerts/${alert.alert_id}`, {
        key, method: 'PUT', body: definition({ name: 'Slow', condition: 'p95_response_time > 800ms', webhook: { url: `${hooks.url}/b` } }),
      });
      expect(replaced.status, JSON.stringify(replaced.json)).to.equal(200);
      expect(replaced.json.data).to.include({ name: 'Slow', metric: 'p95_response_time', threshold: 0.8, duration: null, severity: 'warning' });
      expect(replaced.json.data.webhook).to.deep.equal({ url: `${hooks.url}/b`, payload_template: null, signing_secret: alert.webhook.signing_secret, previous_secret_expires_at: null });

      expect((await call(service.url, `/v1/alerts/${alert.alert_id}`, { key, method: 'DELETE' })).json.data).to.deep.equal({ alert_id: alert.alert_id, deleted: true });
      expect((await call(service.url, `/v1/alerts/${alert.alert_id}`, { key })).status).to.equal(404);
    });

    it('refuse a condition that does not parse, at its position and with what was expected', async () => {
      const cases: Array<[string, RegExp]> = [
        ['error_rate >', /^at position 12: expected a number after '>', found the end of the condition$/],
        ['latency > 2', /^at position 0: expected a metric \(error_rate, success_rate, .*\), found 'latency'$/],
        ['error_rate > 0.05 or queue_depth > 3', /^at position 18: expected the end of the condition, found 'or'$/],
        ['queue_depth > 10%', /^at position 16: expected no unit after the number/],
      ];
      for (const [condition, reason] of cases) {
        const res = await call(service.url, '/v1/alerts', { key, body: definition({ condition }) });
        expect(res.status, condition).to.equal(400);
        expect(res.json.error.code).to.equal('INVALID_PARAMETER');
        expect(res.json.error.details.parameter).to.equal('condition');
        expect(res.json.error.details.provided).to.equal(condition);
        expect(res.json.error.details.reason, condition).to.match(reason);
      }
    });

    it('refuse templates, destinations and scopes that could not work, when saved', async () => {
      const refused = async (body: Record<string, unknown>, parameter: string, reason: RegExp, asMaster = false) => {
        const res = await call(service.url, '/v1/alerts', { ...(asMaster ? {} : { key }), body });
        expect(res.status, JSON.stringify(res.json)).to.equal(400);
        expect(res.json.error.details.parameter).to.equal(parameter);
        expect(res.json.error.details.reason).to.match(reason);
      };
      await refused(definition({ webhook: { url: hooks.url, payload_template: '{"a": "{{secret}}"}' } }), 'webhook.payload_template', /^at position \d+: .*secret/);
      await refused(definition({ webhook: { url: hooks.url, payload_template: '{"a": {{message}}' } }), 'webhook.payload_template', /^at position \d+: /);
      await refused(definition({ channels: ['webhook', 'slack'] }), 'slack', /is required: channels lists slack/);
      await refused(definition({ slack: { webhook_url: slack.url } }), 'slack', /is set but channels does not list slack/);
      await refused(definition({ webhook: { url: 'http://10.1.2.3/hook' } }), 'webhook.url', /private|not allowed|refused/i);
      await refused(definition({ scope: { endpoint: '/v1/nothing' } }), 'scope.endpoint', /not an endpoint of this API/);
      await refused(definition({ condition: 'usage_percentage > 80' }), 'condition', /scope.account_id/, true);
      await refused(definition({ condition: 'queue_depth > 80', scope: { endpoint: '/v1/search' } }), 'scope.endpoint', /whole deployment/);
      await refused(definition({ duration: '5 minutes' }), 'duration', /duration such as/);
      await refused(definition({ duration: '8d' }), 'duration', /at most 7d/);
      await refused(definition({ severity: 'page' }), 'severity', /one of: info, warning, critical/);

      // A deployment without SMTP_HOST sends no email, and says so when the alert is saved.
      const mailless = await startTestService({ QUEUE_PREFIX: service.config.queuePrefix, DATABASE_URL: service.config.databaseUrl }, 'api');
      try {
        const res = await call(mailless.url, '/v1/alerts', { key, body: definition({ channels: ['email'], webhook: undefined, email: { to: ['ops@example.com'] } }) });
        expect(res.status).to.equal(400);
        expect(res.json.error.details).to.deep.include({ parameter: 'channels' });
        expect(res.json.error.details.reason).to.match(/SMTP_HOST/);
      } finally {
        await mailless.close();
      }

      const foreign = await call(service.url, '/v1/alerts', { key, body: definition({ scope: { account_id: 'acct_someone_else' } }) });
      expect(foreign.status).to.equal(403);
      const missing = await call(service.url, '/v1/alerts', { body: definition({ scope: { account_id: 'acct_does_not_exist' } }) });
      expect(missing.status).to.equal(404);
      expect((await call(service.url, '/v1/alerts', { key })).json.data.total).to.equal(0);
    });

    it('stop at 1,000 per owner, however many are created at once', async () => {
      const owner = await createAccount(service.url, 'pro');
      const ownerKey = (await createKey(service.url, { account_id: owner })).key;
      const storage = openStorage(service.config.databaseUrl, 2);
      try {
        const now = new Date();
        await storage.db.insertInto('alerts').values(Array.from({ length: 995 }, (_, i) => ({
          id: `alrt_limit_${i}`, owner_account_id: owner, owner_mode: 'live', name: `n${i}`, severity: 'info', condition: 'error_rate > 0.5',
          duration_ms: 0, scope_account_id: owner, scope_mode: 'live', scope_endpoint: null, channels: '{"list":[]}', enabled: 0, created_at: now, updated_at: now,
        }))).execute();
      } finally {
        await storage.close();
      }
      const answers = await Promise.all(Array.from({ length: 10 }, () => call(service.url, '/v1/alerts', { key: ownerKey, body: definition({ enabled: false }) })));
      expect(answers.filter((a) => a.status === 200)).to.have.length(5);
      const refused = answers.filter((a) => a.status !== 200);
      expect(refused).to.have.length(5);
      for (const a of refused) expect(a.json.error).to.deep.include({ code: 'RESOURCE_LIMIT_REACHED', details: { resource: 'alerts', limit: 1000, count: 1000 } });
      expect((await call(service.url, '/v1/alerts?limit=1', { key: ownerKey })).json.data.total).to.equal(1000);
    });
  });

  describe('lifecycle', () => {
    let alertKey: string;
    let alert: any;

    before(async () => {
      alertKey = (await createKey(service.url, { account_id: await createAccount(service.url, 'pro') })).key;
    });

    it('goes pending, fires once after its duration, is listed by live metrics, and resolves once', async () => {
      const created = await call(service.url, '/v1/alerts', {
        key: alertKey,
        body: definition({
          name: 'Lifecycle', duration: '2s', channels: ['webhook', 'slack', 'email'],
          webhook: { url: `${hooks.url}/life` }, slack: { webhook_url: `${slack.url}/life` }, email: { to: ['oncall@example.com'] },
        }),
      });
      expect(created.status, JSON.stringify(created.json)).to.equal(200);
      alert = created.json.data;
      const events = (event: string) => hooks.received.filter((r) => r.path === '/life' && r.json?.event === event);
      const slackMessages = () => slack.received.filter((r) => r.path === '/life');

      // Reads below use the master key: the alert key's own requests would count in its figures.
      const state = async () => (await call(service.url, `/v1/alerts/${alert.alert_id}`)).json.data.state;
      await traffic(service.url, alertKey, 6, 0);
      const pending = await eventually(async () => {
        const now = await state();
        return now.status === 'pending' ? now : undefined;
      }, 10_000);
      // 6 failed of 7 (the alert's creation succeeded).
      expect(pending.value).to.be.closeTo(6 / 7, 1e-9);
      expect(events('alert.firing')).to.have.length(0);
      await until(async () => events('alert.firing').length === 1, 15_000);
      const firing = await state();
      expect(firing.status).to.equal('firing');
      expect(Date.parse(firing.since) - Date.parse(pending.since)).to.be.at.least(2000);

      const [fired] = events('alert.firing');
      expect(fired!.json).to.include({ alert_id: alert.alert_id, alert_name: 'Lifecycle', severity: 'warning', status: 'firing' });
      expect(fired!.json.metrics).to.deep.include({ threshold: 0.5 });
      expect(fired!.json.metrics.error_rate).to.be.above(0.5);
      const now = Math.floor(Date.now() / 1000);
      expect(verifySignature(alert.webhook.signing_secret, fired!.raw, String(fired!.headers['x-sev-signature']), now)).to.equal(true);
      expect(verifySignature(alert.webhook.signing_secret, fired!.raw.replace('Lifecycle', 'Lifecycl3'), String(fired!.headers['x-sev-signature']), now)).to.equal(false);
      expect(fired!.headers['idempotency-key']).to.be.a('string').and.not.equal('');
      await until(async () => slackMessages().length === 1, 10_000);
      await until(async () => smtp.mails.length === 1, 10_000);
      const mail = await simpleParser(smtp.mails[0]!.raw);
      expect(smtp.mails[0]!.to).to.deep.equal(['oncall@example.com']);
      expect(mail.subject).to.include('Lifecycle');
      expect(mail.text).to.include('error_rate');
      expect(mail.html).to.be.a('string').and.include('Lifecycle');
      expect(slackMessages()[0]!.json.text).to.include('Lifecycle');
      expect(slackMessages()[0]!.json.blocks).to.be.an('array').that.is.not.empty;

      const live = (await call(service.url, '/v1/metrics/live', { key: alertKey })).json.data;
      expect(live.alerts).to.have.length(1);
      expect(live.alerts[0]).to.include({ level: 'warning', timestamp: firing.since });
      expect(live.alerts[0].message).to.include('Lifecycle').and.include('error_rate');
      expect(live.alerts[0].duration).to.be.a('number').at.least(0);
      expect((await call(service.url, '/v1/metrics/live', { key: otherKey })).json.data.alerts).to.deep.equal([]);

      // 6 failed of 22: under the threshold.
      await traffic(service.url, alertKey, 0, 14);
      await until(async () => events('alert.resolved').length === 1, 15_000);
      await until(async () => slackMessages().length === 2, 10_000);
      await until(async () => smtp.mails.length === 2, 10_000);
      expect((await simpleParser(smtp.mails[1]!.raw)).subject).to.match(/resolved/i);
      // Three more evaluations: nothing more is sent.
      await new Promise((resolve) => setTimeout(resolve, 3200));
      expect(events('alert.firing')).to.have.length(1);
      expect(events('alert.resolved')).to.have.length(1);
      expect(slackMessages()).to.have.length(2);
      expect(smtp.mails).to.have.length(2);
      expect((await call(service.url, '/v1/metrics/live', { key: alertKey })).json.data.alerts).to.deep.equal([]);

      const history = (await call(service.url, `/v1/alerts/${alert.alert_id}/history`, { key: alertKey })).json.data;
      expect(history.items.map((e: any) => `${e.from}>${e.to}`)).to.deep.equal(['firing>resolved', 'pending>firing', 'inactive>pending']);
      expect(history.items[0].value).to.be.below(0.5);
      expect(history.items[1].value).to.be.above(0.5);

      const log = (await call(service.url, `/v1/alerts/${alert.alert_id}/deliveries`, { key: alertKey })).json.data;
      expect(log.total).to.equal(6);
      for (const delivery of log.items) expect(delivery).to.include({ status: 'delivered', attempts: 1, last_error: null });
      expect(log.items.map((d: any) => `${d.event}/${d.channel}`).sort()).to.deep.equal([
        'alert.firing/email', 'alert.firing/slack', 'alert.firing/webhook', 'alert.resolved/email', 'alert.resolved/slack', 'alert.resolved/webhook',
      ]);
    });

    it('sends a test notification now, on every channel, and logs it', async () => {
      const before = hooks.received.length;
      const res = await call(service.url, `/v1/alerts/${alert.alert_id}/test`, { key: alertKey, method: 'POST' });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(res.json.data.deliveries.map((d: any) => `${d.channel}:${d.status}`).sort()).to.deep.equal(['email:delivered', 'slack:delivered', 'webhook:delivered']);
      expect((await simpleParser(smtp.mails.at(-1)!.raw)).subject).to.match(/test/i);
      expect(hooks.received.slice(before).map((r) => r.json.event)).to.deep.equal(['alert.test']);
    });

    it('rotates the webhook secret, the old one signing beside the new one for 24 hours', async () => {
      const before = (await call(service.url, `/v1/alerts/${alert.alert_id}`)).json.data.webhook;
      expect(before.previous_secret_expires_at).to.equal(null);
      const rotated = await call(service.url, `/v1/alerts/${alert.alert_id}/rotate-secret`, { key: alertKey, method: 'POST' });
      expect(rotated.status, JSON.stringify(rotated.json)).to.equal(200);
      const webhook = rotated.json.data.webhook;
      expect(webhook.signing_secret).to.match(/^whsec_/).and.not.equal(before.signing_secret);
      expect(Date.parse(webhook.previous_secret_expires_at) - Date.now()).to.be.within(23.9 * 3600_000, 24 * 3600_000);
      expect(JSON.stringify(rotated.json.data)).to.not.include(before.signing_secret);

      const sent = hooks.received.length;
      expect((await call(service.url, `/v1/alerts/${alert.alert_id}/test`, { key: alertKey, method: 'POST' })).status).to.equal(200);
      const [request] = hooks.received.slice(sent);
      const header = String(request!.headers['x-sev-signature']);
      const now = Math.floor(Date.now() / 1000);
      expect(verifySignature(webhook.signing_secret, request!.raw, header, now)).to.equal(true);
      expect(verifySignature(before.signing_secret, request!.raw, header, now)).to.equal(true);

      const slackOnly = await call(service.url, '/v1/alerts', { key: alertKey, body: definition({ channels: ['slack'], webhook: undefined, slack: { webhook_url: slack.url }, enabled: false }) });
      const refused = await call(service.url, `/v1/alerts/${slackOnly.json.data.alert_id}/rotate-secret`, { key: alertKey, method: 'POST' });
      expect(refused.status).to.equal(400);
      expect(refused.json.error.details.parameter).to.equal('channels');
    });

    it('retries a receiver that fails twice, and leaves one dead letter for one that always fails', async () => {
      const flaky = await startHookReceiver((_request, index) => (index < 2 ? 503 : 200));
      const broken = await startHookReceiver(() => 500);
      try {
        const make = async (url: string) => (await call(service.url, '/v1/alerts', { key: alertKey, body: definition({ name: url, webhook: { url } }) })).json.data.alert_id as string;
        const [flakyAlert, brokenAlert] = [await make(flaky.url), await make(broken.url)];
        const flakyTest = (await call(service.url, `/v1/alerts/${flakyAlert}/test`, { key: alertKey, method: 'POST' })).json.data;
        expect(flakyTest.deliveries[0].status).to.equal('retrying');
        const delivered = await eventually(async () => {
          const [d] = (await call(service.url, `/v1/alerts/${flakyAlert}/deliveries`, { key: alertKey })).json.data.items;
          return d.status === 'delivered' ? d : undefined;
        }, 10_000);
        expect(delivered.attempts).to.equal(3);
        expect(flaky.received).to.have.length(3);
        expect(new Set(flaky.received.map((r) => r.headers['idempotency-key'])).size).to.equal(1);

        await call(service.url, `/v1/alerts/${brokenAlert}/test`, { key: alertKey, method: 'POST' });
        const dead = await eventually(async () => {
          const log = (await call(service.url, `/v1/alerts/${brokenAlert}/deliveries`, { key: alertKey })).json.data;
          return log.items[0].status === 'dead' ? log : undefined;
        }, 10_000);
        expect(dead.total).to.equal(1);
        expect(dead.items[0]).to.include({ attempts: 3, last_status_code: 500 });
        expect(dead.items[0].last_error).to.be.a('string').and.not.equal('');
        expect(broken.received).to.have.length(3);
      } finally {
        await flaky.close();
        await broken.close();
      }
    });
  });
});

describe('alerts across processes', function () {
  this.timeout(120_000);

  for (const processes of [2, 4]) {
    it(`evaluate once per interval with ${processes} worker processes: one firing and one resolved notification`, async () => {
      const env = testEnv({ DATABASE_URL: await freshDatabase(`alerts_${processes}`), ...FAST, POOL_SIZE: '1', LOG_LEVEL: 'info' });
      const api = await startTestService(env, 'api');
      const receiver = await startHookReceiver();
      const workers: ChildProcess[] = [];
      try {
        const ready = Array.from({ length: processes }, () => new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist/workers/main.js')], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
          workers.push(child);
          let out = '';
          child.stdout!.on('data', (chunk: Buffer) => {
            out += chunk.toString();
            if (out.includes('listening on')) resolve();
          });
          child.once('exit', (code) => reject(new Error(`a worker exited (${code}) before it was ready`)));
        }));
        await Promise.all(ready);
        const alertKey = (await createKey(api.url, { account_id: await createAccount(api.url, 'pro') })).key;
        const created = await call(api.url, '/v1/alerts', { key: alertKey, body: definition({ name: `x${processes}`, duration: '1s', webhook: { url: receiver.url } }) });
        expect(created.status).to.equal(200);
        const count = (event: string) => receiver.where('event', event).length;

        await traffic(api.url, alertKey, 4, 0);
        await until(async () => count('alert.firing') > 0, 20_000);
        await traffic(api.url, alertKey, 0, 8);
        await until(async () => count('alert.resolved') > 0, 20_000);
        await new Promise((resolve) => setTimeout(resolve, 3500));
        expect(count('alert.firing')).to.equal(1);
        expect(count('alert.resolved')).to.equal(1);
        const history = (await call(api.url, `/v1/alerts/${created.json.data.alert_id}/history`, { key: alertKey })).json.data;
        expect(history.items.map((e: any) => e.to)).to.deep.equal(['resolved', 'firing', 'pending']);
      } finally {
        for (const worker of workers) worker.kill('SIGTERM');
        await Promise.all(workers.map((w) => new Promise((resolve) => (w.exitCode !== null ? resolve(null) : w.once('exit', resolve)))));
        await api.close();
        await receiver.close();
      }
    });
  }
});
