import { expect } from 'chai';
import { ConfigError, loadConfig } from '../src/config.js';
import {
  checkPayloadTemplate, emailMessage, renderWebhookPayload, slackPayload, type Notification,
} from '../src/notify/notification.js';
import { newSigningSecret, signPayload, verifySignature } from '../src/notify/signature.js';
import { signingSecrets } from '../src/notify/send-delivery.js';
import { destinationRefusal } from '../src/notify/http-post.js';
import { emailConfigured } from '../src/notify/email-sender.js';

const tricky = 'He said "stop" \\ now\nline two\ttab </script> é 漢字 🚨 \u2028 \u0001 & <@channel>';

function notification(overrides: Partial<Notification> = {}): Notification {
  return {
    eventId: 'evt_1',
    event: 'alert.firing',
    alert: { id: 'alert_1', name: 'Search errors', severity: 'critical', condition: 'error_rate > 0.05' },
    message: 'error_rate is 0.12 (> 0.05) for 5m on /v1/search',
    timestamp: '2026-11-25T12:00:00.000Z',
    metrics: { error_rate: 0.12, threshold: 0.05, endpoint: '/v1/search', p95: null },
    ...overrides,
  };
}

describe('webhook payload templates', () => {
  it('accepts a template using every placeholder, in strings and as values, with spaces inside the braces', () => {
    const template = '{"text": "{{alert_name}} ({{ severity }}): {{message}}", "at": {{timestamp}}, "m": {{metrics}}, "raw": "{{metrics}}", "list": [{{severity}}, 1, true, null]}';
    expect(checkPayloadTemplate(template)).to.deep.equal({ ok: true });
  });

  it('renders values inside strings escaped, with no quotes of their own, and outside strings as JSON values', () => {
    const n = notification({ message: tricky, alert: { id: 'a', name: 'Name "quoted"', severity: 'warning', condition: 'error_rate > 0.05' } });
    const template = '{"text": "[{{severity}}] {{alert_name}}: {{message}}", "message": {{message}}, "m": {{metrics}}, "raw": "figures={{metrics}}", "at": {{timestamp}}}';
    const body = renderWebhookPayload(n, template);
    const parsed = JSON.parse(body);
    expect(parsed.text).to.equal(`[warning] Name "quoted": ${tricky}`);
    expect(parsed.message).to.equal(tricky);
    expect(parsed.m).to.deep.equal(n.metrics);
    expect(parsed.raw).to.equal(`figures=${JSON.stringify(n.metrics)}`);
    expect(parsed.at).to.equal(n.timestamp);
    // Escaped, not dropped: a raw line break or quote never reaches the body inside a string.
    expect(body).to.include('\\n').and.to.include('\\"stop\\"');
  });

  it('keeps a lone surrogate from breaking the JSON', () => {
    const body = renderWebhookPayload(notification({ message: 'half \ud83d pair' }), '{"m": "{{message}}"}');
    expect(JSON.parse(body).m).to.equal('half \ud83d pair');
  });

  it('leaves the template text outside placeholders exactly as written', () => {
    const template = '{\n  "a" : "x {{{message}}} y",\n  "b":[ 1.5e3 , -0 ]\n}';
    expect(checkPayloadTemplate(template)).to.deep.equal({ ok: true });
    const body = renderWebhookPayload(notification({ message: 'hi' }), template);
    expect(body).to.equal('{\n  "a" : "x {hi} y",\n  "b":[ 1.5e3 , -0 ]\n}');
  });

  it('refuses an unknown placeholder at the position of its name', () => {
    expect(checkPayloadTemplate('{"a": {{alert}}}')).to.deep.include({ ok: false, position: 8 });
    const result = checkPayloadTemplate('{"a": "x {{ sevrity }}"}');
    expect(result).to.deep.include({ ok: false, position: 12 });
    expect((result as { reason: string }).reason).to.match(/unknown placeholder "sevrity".*\{\{severity\}\}/);
  });

  it('refuses an unclosed "{{" at its position', () => {
    const result = checkPayloadTemplate('{"a": "{{message", "b": 1}');
    expect(result).to.deep.include({ ok: false, position: 7 });
    expect((result as { reason: string }).reason).to.match(/unclosed "\{\{"/);
    expect(checkPayloadTemplate('{"a": {{message')).to.deep.include({ ok: false, position: 6 });
  });

  it('refuses templates that would not render to JSON, saying where and what was expected', () => {
    const cases: Array<[string, number, RegExp]> = [
      ['{"a": 1,}', 8, /expected a property name in double quotes, found "\}"/],
      ['{"a": 1 "b": 2}', 8, /expected "," or "\}"/],
      ['{"a": {{message}}', 17, /found the end of the template/],
      ['{{{severity}}: 1}', 1, /property name must be a string/],
      ['{"a": "line\nbreak"}', 11, /control character/],
      ['{"a": "\\x"}', 7, /invalid escape/],
      ['{"a": tru}', 6, /expected a JSON value/],
      ['{"a": 01}', 7, /expected "," or "\}"/],
      ['{"a": 1} x', 9, /expected the end of the template/],
      ['', 0, /expected a JSON value/],
    ];
    for (const [template, position, reason] of cases) {
      const result = checkPayloadTemplate(template);
      expect(result, template).to.deep.include({ ok: false, position });
      expect((result as { reason: string }).reason, template).to.match(reason);
    }
  });

  it('sends the default payload when there is no template', () => {
    const n = notification({ event: 'alert.resolved' });
    expect(JSON.parse(renderWebhookPayload(n))).to.deep.equal({
      event: 'alert.resolved', alert_id: 'alert_1', alert_name: 'Search errors', severity: 'critical', status: 'resolved',
      message: n.message, timestamp: n.timestamp, condition: 'error_rate > 0.05', metrics: n.metrics,
    });
    expect(renderWebhookPayload(n, '')).to.equal(renderWebhookPayload(n));
  });
});

describe('webhook signatures', () => {
  const secret = newSigningSecret();
  const body = '{"event":"alert.firing","message":"é 🚨"}';
  const now = 1_795_608_000;

  it('verifies a signature made now, and refuses a modified body, another secret or a modified timestamp', () => {
    const header = signPayload(secret, body, now);
    expect(header).to.match(/^t=1795608000,v1=[0-9a-f]{64}$/);
    expect(verifySignature(secret, body, header, now)).to.equal(true);
    expect(verifySignature(secret, body.replace('firing', 'resolved'), header, now)).to.equal(false);
    expect(verifySignature(`${secret}x`, body, header, now)).to.equal(false);
    expect(verifySignature(secret, body, header.replace(`t=${now}`, `t=${now + 1}`), now)).to.equal(false);
  });

  it('refuses a timestamp outside the tolerance, either way', () => {
    expect(verifySignature(secret, body, signPayload(secret, body, now - 300), now)).to.equal(true);
    expect(verifySignature(secret, body, signPayload(secret, body, now - 301), now)).to.equal(false);
    expect(verifySignature(secret, body, signPayload(secret, body, now + 301), now)).to.equal(false);
    expect(verifySignature(secret, body, signPayload(secret, body, now - 3000), now, 3600)).to.equal(true);
  });

  it('accepts a header with several v1 values when one matches, and refuses malformed ones', () => {
    const good = signPayload(secret, body, now);
    const [t, v1] = good.split(',');
    expect(verifySignature(secret, body, `${t},v1=${'0'.repeat(64)},${v1}`, now)).to.equal(true);
    for (const bad of ['', 'garbage', `${t}`, `${v1}`, `t=abc,${v1}`, `${t},v1=${v1!.slice(3, 20)}`]) {
      expect(verifySignature(secret, body, bad, now), bad).to.equal(false);
    }
  });

  it('signs with a rotated secret beside the new one until it lapses, so a receiver holding either verifies', () => {
    const fresh = newSigningSecret();
    const target = { type: 'webhook' as const, url: 'https://hooks.example.com', signing_secret: fresh, previous_secret: { secret, until: new Date((now + 60) * 1000).toISOString() } };
    const during = signPayload(signingSecrets(target, now), body, now);
    expect(during.split(',')).to.have.length(3);
    expect(verifySignature(fresh, body, during, now)).to.equal(true);
    expect(verifySignature(secret, body, during, now)).to.equal(true);
    const after = signPayload(signingSecrets(target, now + 60), body, now + 60);
    expect(verifySignature(fresh, body, after, now + 60)).to.equal(true);
    expect(verifySignature(secret, body, after, now + 60)).to.equal(false);
  });

  it('makes distinct secrets of 32 random bytes', () => {
    const a = newSigningSecret();
    expect(a).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(6), 'base64url')).to.have.length(32);
    expect(newSigningSecret()).to.not.equal(a);
  });
});

describe('Slack payload', () => {
  it('has text and header, section and context blocks, with &, < and > escaped in mrkdwn', () => {
    const n = notification({ message: 'rate > 5 & <!channel> alert', alert: { id: 'alert_1', name: 'A <b> & c', severity: 'warning', condition: 'error_rate > 0.05' } });
    const payload = slackPayload(n) as { text: string; blocks: any[] };
    expect(payload.text).to.equal('FIRING [warning] A &lt;b&gt; &amp; c: rate &gt; 5 &amp; &lt;!channel&gt; alert');
    expect(payload.blocks.map((b) => b.type)).to.deep.equal(['header', 'section', 'context']);
    expect(payload.blocks[0].text).to.deep.equal({ type: 'plain_text', text: 'FIRING: A <b> & c', emoji: true });
    expect(payload.blocks[1].text.type).to.equal('mrkdwn');
    expect(payload.blocks[1].text.text).to.include('rate &gt; 5 &amp; &lt;!channel&gt; alert').and.not.to.include('<!channel>');
    expect(payload.blocks[1].fields.map((f: { text: string }) => f.text)).to.deep.equal([
      '*Severity*\nwarning', '*Condition*\nerror_rate &gt; 0.05', '*error_rate*\n0.12', '*threshold*\n0.05', '*endpoint*\n/v1/search', '*p95*\nn/a',
    ]);
    expect(payload.blocks[2].elements[0].text).to.include('<!date^1795608000^').and.to.include('|2026-11-25T12:00:00.000Z>');
  });

  it('keeps within Slack limits for long names and messages', () => {
    const payload = slackPayload(notification({ message: 'x'.repeat(5000), alert: { id: 'a', name: 'n'.repeat(300), severity: 'info', condition: 'c > 1' } })) as { blocks: any[] };
    expect([...payload.blocks[0].text.text].length).to.be.at.most(150);
    expect([...payload.blocks[1].text.text].length).to.be.at.most(3000);
  });
});

describe('email message', () => {
  it('has a subject, and text and HTML parts, the HTML escaped', () => {
    const n = notification({ message: tricky, alert: { id: 'alert_1', name: '<img src=x onerror=alert(1)>', severity: 'critical', condition: 'error_rate > 0.05' } });
    const mail = emailMessage(n);
    expect(mail.subject).to.equal('[FIRING] <img src=x onerror=alert(1)> (critical)');
    expect(mail.text).to.include(tricky).and.to.include('error_rate: 0.12');
    expect(mail.html).to.include('&lt;img src=x onerror=alert(1)&gt;').and.to.include('&lt;/script&gt;');
    expect(mail.html).to.not.include('<img');
    expect(mail.html).to.not.include('</script>');
  });

  it('never lets a line break into the subject', () => {
    expect(emailMessage(notification({ alert: { id: 'a', name: 'x\r\nBcc: victim@example.com', severity: 'info', condition: 'c > 1' } })).subject)
      .to.equal('[FIRING] x Bcc: victim@example.com (info)');
  });
});

describe('notification destinations (save-time check)', () => {
  it('refuses non-http URLs and non-public literal addresses unless allowed', () => {
    expect(destinationRefusal('https://hooks.example.com/x', [])).to.equal(undefined);
    expect(destinationRefusal('ftp://example.com/', [])).to.match(/http/);
    expect(destinationRefusal('not a url', [])).to.match(/http/);
    for (const url of ['http://127.0.0.1:8080/', 'http://10.1.2.3/', 'http://[::1]/', 'http://169.254.169.254/latest', 'http://localhost/', 'http://api.localhost/',
      'http://localhost./', 'http://API.LocalHost./']) {
      expect(destinationRefusal(url, []), url).to.match(/address not allowed/);
    }
    expect(destinationRefusal('http://127.0.0.1:8080/', ['127.0.0.0/8'])).to.equal(undefined);
    expect(destinationRefusal('http://localhost/', ['127.0.0.0/8'])).to.equal(undefined);
    expect(destinationRefusal('http://localhost./', ['127.0.0.0/8'])).to.equal(undefined);
    // A trailing dot is a fully qualified name, not a loopback one.
    expect(destinationRefusal('http://notlocalhost./', [])).to.equal(undefined);
    expect(destinationRefusal('http://10.1.2.3/', ['127.0.0.0/8'])).to.match(/address not allowed/);
  });
});

describe('notification configuration', () => {
  const rejected = (env: Record<string, string>, variable: string) => {
    expect(() => loadConfig(env)).to.throw(ConfigError, new RegExp(`^Invalid configuration: ${variable}\\b`));
  };

  it('has documented defaults and no email channel without SMTP_HOST', () => {
    const config = loadConfig({});
    expect(config.notify).to.deep.equal({ maxAttempts: 10, retryBaseMs: 5000, timeoutMs: 10_000, concurrency: 10, lockMs: 30_000 });
    expect(config.smtp).to.equal(undefined);
    expect(emailConfigured(config)).to.equal(false);
  });

  it('reads the SMTP settings, STARTTLS required by default', () => {
    const config = loadConfig({ SMTP_HOST: 'mail.example.com', SMTP_FROM: 'Alerts <alerts@example.com>', SMTP_USER: 'u', SMTP_PASSWORD: ' p w ' });
    expect(config.smtp).to.deep.equal({
      host: 'mail.example.com', port: 587, secure: false, starttls: 'required', auth: { user: 'u', pass: ' p w ' },
      from: 'Alerts <alerts@example.com>', tls: { ca: undefined, rejectUnauthorized: true },
    });
    expect(emailConfigured(config)).to.equal(true);
  });

  it('refuses SMTP settings that cannot work or would leak the password', () => {
    rejected({ SMTP_HOST: 'mail.example.com' }, 'SMTP_FROM');
    rejected({ SMTP_HOST: 'mail.example.com', SMTP_FROM: 'nobody' }, 'SMTP_FROM');
    rejected({ SMTP_HOST: 'mail.example.com', SMTP_FROM: 'a@example.com', SMTP_USER: 'u' }, 'SMTP_PASSWORD');
    rejected({ SMTP_HOST: 'mail.example.com', SMTP_FROM: 'a@example.com', SMTP_USER: 'u', SMTP_PASSWORD: 'p', SMTP_STARTTLS: 'off' }, 'SMTP_STARTTLS');
    rejected({ SMTP_STARTTLS: 'sometimes' }, 'SMTP_STARTTLS');
    rejected({ SMTP_TLS_CA: '/nonexistent/ca.pem' }, 'SMTP_TLS_CA');
    rejected({ NOTIFY_MAX_ATTEMPTS: '0' }, 'NOTIFY_MAX_ATTEMPTS');
    rejected({ NOTIFY_LOCK_MS: '100' }, 'NOTIFY_LOCK_MS');
  });
});
