/**
 * Notifications end to end: deliveries recorded with insertDeliveries, enqueued by a
 * NotificationDispatcher, sent by the service's real notify worker (BullMQ, Redis, MariaDB) to
 * receivers this test runs on 127.0.0.1: HTTP servers and an SMTP server with STARTTLS and AUTH.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Queue } from 'bullmq';
import { expect } from 'chai';
import { simpleParser } from 'mailparser';
import { loadConfig, type Config } from '../src/config.js';
import { createLogger } from '../src/log/logger.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { redisOptions } from '../src/redis/connection.js';
import { openStorage, type Storage } from '../src/storage/connection.js';
import { findDeliveries, insertDeliveries, listDeliveries, type DeliveryView } from '../src/notify/deliveries.repository.js';
import { NotificationDispatcher } from '../src/notify/dispatcher.js';
import { renderWebhookPayload, slackPayload, type ChannelTarget, type Notification } from '../src/notify/notification.js';
import { newSigningSecret, signPayload, verifySignature } from '../src/notify/signature.js';
import { VERSION } from '../src/version.js';
import { startTestService, testEnv, type TestService } from './helpers/service.js';
import { spawnService, type ServiceProcess } from './helpers/service-process.js';
import { eventually } from './helpers/wait.js';
import { REFUSED_RECIPIENT, SMTP_USER, startSmtpServer, type LocalSmtp } from './helpers/smtp-server.js';

// ---------------------------------------------------------------------------------------------
// Receivers

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What a path answers to its n-th request (1-based): a status (and body), or 'hold' (never answer). */
type Behaviour = (n: number) => { status: number; body?: string; headers?: Record<string, string> } | 'hold';

class Receiver {
  readonly requests: Received[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly held = new Set<ServerResponse>();
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const pathname = new URL(req.url ?? '/', 'http://x').pathname;
        this.requests.push({ path: pathname, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        const n = this.of(pathname).length;
        const answer: ReturnType<Behaviour> = (this.behaviours.get(pathname) ?? (() => ({ status: 200 })))(n);
        if (answer === 'hold') {
          this.held.add(res);
          res.on('close', () => this.held.delete(res));
          return;
        }
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end(answer.body ?? 'ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  on(pathname: string, behaviour: Behaviour): string {
    this.behaviours.set(pathname, behaviour);
    return `${this.url}${pathname}`;
  }

  of(pathname: string): Received[] {
    return this.requests.filter((r) => r.path === pathname);
  }

  async close(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

// ---------------------------------------------------------------------------------------------
// Driving the module as the alert code will

class Harness {
  readonly storage: Storage;
  readonly queue: Queue;
  readonly dispatcher: NotificationDispatcher;
  readonly alertId = `alert_${randomUUID().slice(0, 8)}`;

  constructor(readonly config: Config) {
    this.storage = openStorage(config.databaseUrl, 2);
    this.queue = new Queue('notify', { connection: redisOptions(config.redisUrl), prefix: config.queuePrefix });
    this.dispatcher = new NotificationDispatcher({ db: this.storage.db, queue: this.queue, logger: createLogger('silent', 'api'), config });
  }

  notification(overrides: Partial<Notification> = {}): Notification {
    return {
      eventId: `evt_${randomUUID()}`,
      event: 'alert.firing',
      alert: { id: this.alertId, name: 'Search "errors" <high>', severity: 'critical', condition: 'error_rate > 0.05' },
      message: 'error_rate is 0.12 (> 0.05) for 5m on /v1/search\nsecond line: é 🚨',
      timestamp: new Date().toISOString(),
      metrics: { error_rate: 0.12, threshold: 0.05 },
      ...overrides,
    };
  }

  /** Records the deliveries in a transaction, then enqueues them after the commit. */
  async notify(n: Notification, targets: ChannelTarget[]): Promise<string[]> {
    const ids = await this.storage.db.transaction().execute((trx) => insertDeliveries(trx, n, targets, { alertId: this.alertId, accountId: null, mode: 'live' }));
    await this.dispatcher.enqueue(ids);
    return ids;
  }

  async delivery(id: string): Promise<DeliveryView> {
    return (await findDeliveries(this.storage.db, [id]))[0]!;
  }

  /** The delivery once it is delivered or dead. */
  settled(id: string, timeoutMs = 15_000): Promise<DeliveryView> {
    return eventually(async () => {
      const view = await this.delivery(id);
      return view.status === 'delivered' || view.status === 'dead' ? view : undefined;
    }, timeoutMs);
  }

  async close(): Promise<void> {
    await this.queue.close();
    await this.storage.close();
  }
}

/** The signature check exactly as docs/notifications.md prints it, loaded from there. */
async function documentedRecipe(dir: string): Promise<(secret: string, rawBody: string, header: string, toleranceSeconds?: number) => boolean> {
  const docs = readFileSync(path.join(PROJECT_ROOT, 'docs/notifications.md'), 'utf8');
  const block = /<!-- verify-recipe[^>]*-->\s*```js\n([\s\S]*?)```/.exec(docs);
  if (!block) throw new Error('docs/notifications.md has no verify-recipe block');
  const file = path.join(dir, 'recipe.mjs');
  writeFileSync(file, block[1]!);
  return ((await import(pathToFileURL(file).href)) as { verifySevSignature: never }).verifySevSignature;
}

async function metricsText(service: TestService): Promise<string> {
  return (await fetch(`${service.url}/metrics`)).text();
}

function counterValue(text: string, channel: string, outcome: string): number {
  const match = new RegExp(`^sev_notifications_total\\{channel="${channel}",outcome="${outcome}"[^}]*\\} (\\d+)`, 'm').exec(text);
  return match ? Number(match[1]) : NaN;
}

// ---------------------------------------------------------------------------------------------

describe('notifications', function () {
  this.timeout(60_000);
  let dir: string;
  let receiver: Receiver;
  let smtp: LocalSmtp;
  let service: TestService;
  let harness: Harness;
  let verifyAsDocumented: Awaited<ReturnType<typeof documentedRecipe>>;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sev-notify-'));
    smtp = await startSmtpServer();
    receiver = await new Receiver().start();
    service = await startTestService({
      NOTIFY_MAX_ATTEMPTS: '3',
      NOTIFY_RETRY_BASE_MS: '50',
      NOTIFY_TIMEOUT_MS: '5000',
      NOTIFY_LOCK_MS: '2000',
      ...smtp.env,
    });
    harness = new Harness(service.config);
    verifyAsDocumented = await documentedRecipe(dir);
  });
  after(async () => {
    await harness?.close();
    await service?.close();
    await receiver?.close();
    await smtp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('webhook', () => {
    it('POSTs the rendered template with the event, delivery, idempotency and signature headers', async () => {
      const secret = newSigningSecret();
      const template = '{"text": "[{{severity}}] {{alert_name}}: {{message}}", "at": {{timestamp}}, "figures": {{metrics}}}';
      const url = receiver.on('/hook', () => ({ status: 204 }));
      const n = harness.notification();
      const [id] = await harness.notify(n, [{ type: 'webhook', url, payload_template: template, signing_secret: secret }]);

      const done = await harness.settled(id!);
      expect(done).to.deep.include({ status: 'delivered', attempts: 1, last_status_code: 204, last_error: null, channel: 'webhook', destination: url });
      expect(done.delivered_at).to.be.a('string');
      const [request] = receiver.of('/hook');
      expect(receiver.of('/hook')).to.have.length(1);
      expect(request!.body).to.equal(renderWebhookPayload(n, template));
      expect(JSON.parse(request!.body)).to.deep.equal({ text: `[critical] ${n.alert.name}: ${n.message}`, at: n.timestamp, figures: n.metrics });
      expect(request!.headers).to.deep.include({
        'content-type': 'application/json',
        'user-agent': `sev-notifications/${VERSION.slice(1)}`,
        'x-sev-event': 'alert.firing',
        'x-sev-delivery': id,
        'idempotency-key': id,
      });

      const signature = request!.headers['x-sev-signature'] as string;
      const now = Math.floor(Date.now() / 1000);
      expect(verifySignature(secret, request!.body, signature, now)).to.equal(true);
      expect(verifyAsDocumented(secret, request!.body, signature)).to.equal(true);
      // A modified body, another secret, an old timestamp: all refused by the documented recipe.
      expect(verifyAsDocumented(secret, request!.body.replace('critical', 'info'), signature)).to.equal(false);
      expect(verifyAsDocumented(newSigningSecret(), request!.body, signature)).to.equal(false);
      const old = signPayload(secret, request!.body, now - 600);
      expect(verifyAsDocumented(secret, request!.body, old)).to.equal(false);
      expect(verifySignature(secret, request!.body, old, now)).to.equal(false);
    });

    it('sends the default payload when the alert has no template', async () => {
      const url = receiver.on('/default', () => ({ status: 200 }));
      const n = harness.notification({ event: 'alert.resolved' });
      const [id] = await harness.notify(n, [{ type: 'webhook', url, signing_secret: newSigningSecret() }]);
      expect((await harness.settled(id!)).status).to.equal('delivered');
      expect(JSON.parse(receiver.of('/default')[0]!.body)).to.deep.equal({
        event: 'alert.resolved', alert_id: harness.alertId, alert_name: n.alert.name, severity: 'critical', status: 'resolved',
        message: n.message, timestamp: n.timestamp, condition: 'error_rate > 0.05', metrics: n.metrics,
      });
    });

    it('retries a receiver that fails twice: the third try is delivered, with the same idempotency key and body', async () => {
      const secret = newSigningSecret();
      const url = receiver.on('/flaky', (n) => (n <= 2 ? { status: 503, body: 'upstream down' } : { status: 200 }));
      const [id] = await harness.notify(harness.notification(), [{ type: 'webhook', url, signing_secret: secret }]);

      const done = await harness.settled(id!);
      expect(done).to.deep.include({ status: 'delivered', attempts: 3, last_status_code: 200, last_error: 'HTTP 503: upstream down' });
      const tries = receiver.of('/flaky');
      expect(tries).to.have.length(3);
      expect(new Set(tries.map((t) => t.headers['idempotency-key']))).to.deep.equal(new Set([id]));
      expect(new Set(tries.map((t) => t.headers['x-sev-delivery']))).to.deep.equal(new Set([id]));
      expect(new Set(tries.map((t) => t.body)).size).to.equal(1);
      // Every try is signed anew, and each signature holds for its own body.
      for (const t of tries) expect(verifyAsDocumented(secret, t.body, t.headers['x-sev-signature'] as string)).to.equal(true);
    });

    it('leaves exactly one dead letter when the receiver always fails, after NOTIFY_MAX_ATTEMPTS tries', async () => {
      const url = receiver.on('/down', () => ({ status: 500, body: 'boom' }));
      const before = counterValue(await metricsText(service), 'webhook', 'dead');
      const n = harness.notification();
      const [id] = await harness.notify(n, [{ type: 'webhook', url, signing_secret: newSigningSecret() }]);

      const dead = await harness.settled(id!);
      expect(dead).to.deep.include({ status: 'dead', attempts: 3, last_status_code: 500, last_error: 'HTTP 500: boom', delivered_at: null });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.of('/down')).to.have.length(3);
      const log = await listDeliveries(harness.storage.db, harness.alertId, 100, 0);
      expect(log.deliveries.filter((d) => d.event_id === n.eventId)).to.have.length(1);
      expect(log.deliveries.filter((d) => d.status === 'dead' && d.destination === url)).to.have.length(1);
      expect(counterValue(await metricsText(service), 'webhook', 'dead')).to.equal(before + 1);
    });

    it('stops at once on 410 Gone', async () => {
      const url = receiver.on('/gone', () => ({ status: 410, body: 'hook removed' }));
      const [id] = await harness.notify(harness.notification(), [{ type: 'webhook', url, signing_secret: newSigningSecret() }]);
      expect(await harness.settled(id!)).to.deep.include({ status: 'dead', attempts: 1, last_status_code: 410, last_error: 'HTTP 410: hook removed' });
      expect(receiver.of('/gone')).to.have.length(1);
    });

    it('does not follow a redirect: it is a failed try and the other address hears nothing', async () => {
      receiver.on('/elsewhere', () => ({ status: 200 }));
      const url = receiver.on('/moved', () => ({ status: 307, headers: { location: `${receiver.url}/elsewhere` } }));
      const [id] = await harness.notify(harness.notification(), [{ type: 'webhook', url, signing_secret: newSigningSecret() }]);
      const dead = await harness.settled(id!);
      expect(dead).to.deep.include({ status: 'dead', attempts: 3, last_status_code: 307 });
      expect(dead.last_error).to.match(/^HTTP 307: redirects are not followed/);
      expect(receiver.of('/elsewhere')).to.have.length(0);
    });

    it('notifies an event once per channel, however often it is recorded and enqueued', async () => {
      const url = receiver.on('/once', () => ({ status: 200 }));
      const n = harness.notification();
      const target: ChannelTarget = { type: 'webhook', url, signing_secret: newSigningSecret() };
      const [first] = await harness.notify(n, [target]);
      const [second] = await harness.notify(n, [target]);
      expect(second).to.equal(first);
      expect((await harness.settled(first!)).status).to.equal('delivered');
      await harness.dispatcher.enqueue([first!]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.of('/once')).to.have.length(1);
    });

    it('relays deliveries that were recorded but never enqueued (their process died after the commit)', async () => {
      const url = receiver.on('/relayed', () => ({ status: 200 }));
      const [id] = await insertDeliveries(harness.storage.db, harness.notification(), [{ type: 'webhook', url, signing_secret: newSigningSecret() }],
        { alertId: harness.alertId, accountId: null, mode: 'live' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.of('/relayed')).to.have.length(0);
      expect(await harness.dispatcher.relay(0)).to.be.at.least(1);
      expect((await harness.settled(id!)).status).to.equal('delivered');
      expect(receiver.of('/relayed')).to.have.length(1);
    });
  });

  describe('Slack', () => {
    it('POSTs text and blocks in the incoming-webhook format', async () => {
      const url = receiver.on('/slack', () => ({ status: 200, body: 'ok' }));
      const n = harness.notification();
      const [id] = await harness.notify(n, [{ type: 'slack', webhook_url: url }]);
      expect(await harness.settled(id!)).to.deep.include({ status: 'delivered', attempts: 1, last_status_code: 200, channel: 'slack' });
      const [request] = receiver.of('/slack');
      expect(request!.headers['content-type']).to.equal('application/json');
      expect(request!.headers['x-sev-signature']).to.equal(undefined);
      const body = JSON.parse(request!.body);
      expect(body).to.deep.equal(slackPayload(n));
      expect(body.text).to.include('Search "errors" &lt;high&gt;');
      expect(body.blocks.map((b: { type: string }) => b.type)).to.deep.equal(['header', 'section', 'context']);
      expect(body.blocks[0].text).to.deep.equal({ type: 'plain_text', text: `FIRING: ${n.alert.name}`, emoji: true });
    });
  });

  describe('email', () => {
    it('sends over SMTP with STARTTLS and AUTH: subject, text and HTML parts', async () => {
      const n = harness.notification();
      const to = ['ops@example.test', 'oncall@example.test'];
      const [id] = await harness.notify(n, [{ type: 'email', to }]);
      const done = await harness.settled(id!);
      expect(done).to.deep.include({ status: 'delivered', attempts: 1, last_status_code: 250, channel: 'email', destination: to.join(',') });

      const mail = smtp.mails.find((m) => m.raw.toString().includes(id!));
      expect(mail, 'the SMTP server received the message').to.not.equal(undefined);
      expect(mail!.secure, 'STARTTLS before the message').to.equal(true);
      expect(mail!.user).to.equal(SMTP_USER);
      expect(mail!.from).to.equal('alerts@sev.test');
      expect(mail!.to).to.deep.equal(to);

      const parsed = await simpleParser(mail!.raw);
      expect(parsed.subject).to.equal('[FIRING] Search "errors" <high> (critical)');
      expect(parsed.messageId).to.equal(`<${id}@sev.test>`);
      expect(parsed.headers.get('x-sev-event')).to.equal('alert.firing');
      expect(parsed.text).to.include(n.message).and.to.include('error_rate: 0.12');
      expect(parsed.html).to.be.a('string');
      expect(parsed.html as string).to.include('Search &quot;errors&quot; &lt;high&gt;').and.to.include('é 🚨');
      expect(parsed.html as string).to.not.include('<high>');
    });

    it('retries a message the server refuses, then leaves it dead with the SMTP reply', async () => {
      const [id] = await harness.notify(harness.notification(), [{ type: 'email', to: [REFUSED_RECIPIENT] }]);
      const dead = await harness.settled(id!);
      expect(dead).to.deep.include({ status: 'dead', attempts: 3, last_status_code: 550 });
      expect(dead.last_error).to.match(/mailbox unavailable/);
    });
  });

  describe('delivery log', () => {
    it('lists an alert\'s deliveries newest first without secrets', async () => {
      const log = await listDeliveries(harness.storage.db, harness.alertId, 3, 0);
      expect(log.total).to.be.at.least(10);
      expect(log.deliveries).to.have.length(3);
      const times = log.deliveries.map((d) => d.created_at);
      expect([...times].sort().reverse()).to.deep.equal(times);
      expect(JSON.stringify(log)).to.not.include('whsec_');
      expect(Object.keys(log.deliveries[0]!).sort()).to.deep.equal(
        ['attempts', 'channel', 'created_at', 'delivered_at', 'destination', 'event', 'event_id', 'id', 'last_error', 'last_status_code', 'status', 'updated_at']);
    });
  });
});

describe('notifications to addresses the SSRF guard refuses', function () {
  this.timeout(60_000);
  let receiver: Receiver;
  let service: TestService;
  let harness: Harness;

  before(async () => {
    receiver = await new Receiver().start();
    // Private ranges other than loopback are allowed: 127.0.0.1 stays refused.
    service = await startTestService({ FETCH_ALLOW_PRIVATE: '10.0.0.0/8', NOTIFY_MAX_ATTEMPTS: '3', NOTIFY_RETRY_BASE_MS: '50', POOL_SIZE: '1' });
    harness = new Harness(service.config);
  });
  after(async () => {
    await harness?.close();
    await service?.close();
    await receiver?.close();
  });

  it('ends a webhook to a loopback address dead at its first try, without a request', async () => {
    const url = receiver.on('/internal', () => ({ status: 200 }));
    const [id] = await harness.notify(harness.notification(), [{ type: 'webhook', url, signing_secret: newSigningSecret() }]);
    const dead = await harness.settled(id!);
    expect(dead).to.deep.include({ status: 'dead', attempts: 1, last_status_code: null, last_error: 'address not allowed: 127.0.0.1' });
    expect(receiver.requests).to.have.length(0);
  });

  it('judges a host name by the address it resolves to (localhost for Slack)', async () => {
    const url = receiver.on('/slack-internal', () => ({ status: 200 })).replace('127.0.0.1', 'localhost');
    const [id] = await harness.notify(harness.notification(), [{ type: 'slack', webhook_url: url }]);
    const dead = await harness.settled(id!);
    expect(dead).to.deep.include({ status: 'dead', attempts: 1, last_status_code: null });
    expect(dead.last_error).to.match(/^address not allowed: (127\.0\.0\.1|::1)$/);
    expect(receiver.requests).to.have.length(0);
  });

  it('refuses email channels when SMTP is not configured', async () => {
    const [id] = await harness.notify(harness.notification(), [{ type: 'email', to: ['ops@example.test'] }]);
    expect(await harness.settled(id!)).to.deep.include({ status: 'dead', attempts: 1, last_error: 'email is not configured on this service (SMTP_HOST is unset)' });
  });
});

describe('notification whose worker is killed mid-delivery', function () {
  this.timeout(90_000);
  const overrides = { NOTIFY_LOCK_MS: '1500', NOTIFY_TIMEOUT_MS: '30000', NOTIFY_RETRY_BASE_MS: '50', POOL_SIZE: '1' };
  const env = testEnv({ ...overrides, LOG_LEVEL: 'info' });
  let receiver: Receiver;
  let child: ServiceProcess | undefined;
  let replacement: TestService | undefined;
  let harness: Harness;

  before(async () => {
    receiver = await new Receiver().start();
    harness = new Harness(loadConfig(env));
  });
  after(async () => {
    await child?.kill();
    await replacement?.close();
    await harness?.close();
    await receiver?.close();
  });

  it('is sent again by another worker once the lock lapses, with the same idempotency key', async () => {
    const worker = child = await spawnService({ ...overrides, QUEUE_PREFIX: env.QUEUE_PREFIX! }, 'worker');

    // The first try is held open by the receiver; the worker dies while waiting for the answer.
    const url = receiver.on('/slow', (n) => (n === 1 ? 'hold' : { status: 200 }));
    const [id] = await harness.notify(harness.notification(), [{ type: 'webhook', url, signing_secret: newSigningSecret() }]);
    await eventually(async () => (receiver.of('/slow').length === 1 ? true : undefined), 15_000);
    await worker.kill();
    expect(await harness.delivery(id!)).to.deep.include({ status: 'queued', attempts: 1 });

    replacement = await startTestService({ ...overrides, QUEUE_PREFIX: env.QUEUE_PREFIX! }, 'worker');
    const done = await harness.settled(id!, 30_000);
    expect(done).to.deep.include({ status: 'delivered', attempts: 2, last_status_code: 200 });
    const tries = receiver.of('/slow');
    expect(tries).to.have.length(2);
    expect(tries.map((t) => t.headers['idempotency-key'])).to.deep.equal([id, id]);
    expect(tries[1]!.body).to.equal(tries[0]!.body);
  });
});
