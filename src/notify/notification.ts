/**
 * What a notification says and how each channel words it: pure functions on values, no I/O.
 *
 * The contract other modules build on (src/notify/README section of docs/notifications.md):
 *  - the alert code builds a Notification per transition and stores one delivery per channel
 *    (deliveries.repository.ts insertDeliveries), then hands the ids to the dispatcher;
 *  - when an alert is saved, checkPayloadTemplate refuses a template that would not render to
 *    JSON, with the 0-based position and what was expected there (a 400 at save time, not a
 *    failed delivery later);
 *  - the worker renders the body with renderWebhookPayload, slackPayload or emailMessage.
 *
 * Webhook templates. The placeholders {{alert_name}}, {{message}}, {{timestamp}}, {{severity}}
 * and {{metrics}} (spaces inside the braces allowed: {{ message }}) are read with the JSON
 * around them in mind, so the body is valid JSON whatever the values hold:
 *  - inside a JSON string literal ("Alert: {{alert_name}}") the value is inserted escaped as
 *    JSON string content, without quotes of its own: quotes, backslashes, line breaks and
 *    control characters cannot end the string. {{metrics}} there is the metrics object as JSON
 *    text, escaped ("{\"error_rate\":0.12}");
 *  - outside a string ({"m": {{metrics}}, "sev": {{severity}}}) it is the JSON value: a string
 *    value in quotes, {{metrics}} as a JSON object.
 * A template is one JSON value (usually an object) with placeholders standing for values or
 * inside strings; placeholders cannot be property names unless quoted ("{{severity}}": true).
 * A literal "{{" inside a string is written with an escape: "\u007b{".
 */

export type NotificationEvent = 'alert.firing' | 'alert.resolved' | 'alert.test';
export type Severity = 'info' | 'warning' | 'critical';

export interface Notification {
  /** Unique per alert event; with the channel it makes the delivery's idempotency key. */
  eventId: string;
  event: NotificationEvent;
  alert: { id: string; name: string; severity: Severity; condition: string };
  /** A human sentence, e.g. "error_rate is 0.12 (> 0.05) for 5m on /v1/search". */
  message: string;
  /** ISO 8601 time of the transition. */
  timestamp: string;
  /** The figures behind the message, e.g. { error_rate: 0.12, threshold: 0.05 }. */
  metrics: Record<string, number | string | null>;
}

export type ChannelTarget =
  | {
    type: 'webhook'; url: string; payload_template?: string; signing_secret: string;
    /** The secret a rotation replaced, still signing beside the new one until `until` (ISO 8601). */
    previous_secret?: { secret: string; until: string };
  }
  | { type: 'slack'; webhook_url: string }
  | { type: 'email'; to: string[] };

export type Channel = ChannelTarget['type'];
export const CHANNELS: readonly Channel[] = ['webhook', 'slack', 'email'];

export const PLACEHOLDERS = ['alert_name', 'message', 'timestamp', 'severity', 'metrics'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
const PLACEHOLDER_SET: ReadonlySet<string> = new Set(PLACEHOLDERS);
const PLACEHOLDER_LIST = PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ');

/** firing, resolved or test: the `status` of the default payload and the word the messages lead with. */
export function notificationStatus(event: NotificationEvent): 'firing' | 'resolved' | 'test' {
  return event === 'alert.firing' ? 'firing' : event === 'alert.resolved' ? 'resolved' : 'test';
}

// ---------------------------------------------------------------------------------------------
// Webhook templates

/** A template that does not describe valid JSON: where (0-based, in the template) and what was expected. */
export class TemplateError extends Error {
  constructor(readonly position: number, readonly reason: string) {
    super(`payload template, at character ${position}: ${reason}`);
    this.name = 'TemplateError';
  }
}

/** A compiled template: literal text, and placeholders standing for a JSON value or inside a string. */
type Part = string | { readonly name: Placeholder; readonly inString: boolean };

const MAX_DEPTH = 64;

/**
 * Reads the template as JSON in which a placeholder may stand for a value or sit inside a
 * string, and splits it into literal text and placeholders. Whatever the placeholders' values,
 * the rendered text is then valid JSON: a value is always inserted as a JSON value, string
 * content always escaped.
 * @throws TemplateError at the first place that is not valid JSON or not a known placeholder.
 */
function compile(template: string): Part[] {
  const parts: Part[] = [];
  let literalFrom = 0;
  let i = 0;
  const fail = (position: number, reason: string): never => {
    throw new TemplateError(position, reason);
  };
  const describe = (at: number): string => (at >= template.length ? 'the end of the template' : `${JSON.stringify(template[at])}`);
  const skipWhitespace = () => {
    while (i < template.length && (template[i] === ' ' || template[i] === '\t' || template[i] === '\n' || template[i] === '\r')) i++;
  };
  const placeholder = (inString: boolean) => {
    const open = i;
    const close = template.indexOf('}}', open + 2);
    const inner = close < 0 ? '' : template.slice(open + 2, close);
    if (close < 0 || /[{}\n\r"]/.test(inner)) fail(open, `unclosed "{{": expected a placeholder name (${PLACEHOLDER_LIST}) and then "}}"`);
    const name = inner.trim();
    const nameAt = open + 2 + (inner.length - inner.trimStart().length);
    if (name === '') fail(nameAt, `empty placeholder: expected one of ${PLACEHOLDER_LIST}`);
    if (!PLACEHOLDER_SET.has(name)) fail(nameAt, `unknown placeholder "${name}": expected one of ${PLACEHOLDER_LIST}`);
    if (open > literalFrom) parts.push(template.slice(literalFrom, open));
    parts.push({ name: name as Placeholder, inString });
    i = close + 2;
    literalFrom = i;
  };
  const string = () => {
    const start = i;
    i++; // the opening quote
    for (;;) {
      if (i >= template.length) fail(start, 'unterminated string: expected a closing \'"\'');
      const ch = template[i]!;
      if (ch === '"') {
        i++;
        return;
      }
      if (ch === '\\') {
        const next = template[i + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(template.slice(i + 2, i + 6))) fail(i, 'expected four hex digits after "\\u"');
          i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) {
          i += 2;
        } else {
          fail(i, 'invalid escape: expected one of \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX');
        }
        continue;
      }
      if (ch.charCodeAt(0) < 0x20) fail(i, 'control character inside a string: write a line break as \\n and a tab as \\t');
      // In "{{{x}}}" the placeholder is the innermost pair: the first brace is text.
      if (ch === '{' && template[i + 1] === '{' && template[i + 2] !== '{') {
        placeholder(true);
        continue;
      }
      i++;
    }
  };
  const number = () => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(template.slice(i));
    if (!match) fail(i, `expected a number, found ${describe(i)}`);
    i += match![0].length;
  };
  const value = (depth: number): void => {
    skipWhitespace();
    if (depth > MAX_DEPTH) fail(i, `nested deeper than ${MAX_DEPTH} levels`);
    const ch = template[i];
    // "{{{" outside a string opens an object whose first property is a placeholder: refused below, with that reason.
    if (ch === '{' && template[i + 1] === '{' && template[i + 2] !== '{') return placeholder(false);
    if (ch === '{') return object(depth);
    if (ch === '[') return array(depth);
    if (ch === '"') return string();
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) return number();
    for (const literal of ['true', 'false', 'null']) {
      if (template.startsWith(literal, i)) {
        i += literal.length;
        return;
      }
    }
    fail(i, `expected a JSON value (object, array, string, number, true, false, null) or a placeholder, found ${describe(i)}`);
  };
  const object = (depth: number) => {
    i++;
    skipWhitespace();
    if (template[i] === '}') {
      i++;
      return;
    }
    for (;;) {
      skipWhitespace();
      if (template[i] !== '"') {
        fail(i, template.startsWith('{{', i)
          ? 'a property name must be a string: put the placeholder inside quotes ("{{…}}")'
          : `expected a property name in double quotes, found ${describe(i)}`);
      }
      string();
      skipWhitespace();
      if (template[i] !== ':') fail(i, `expected ":" after the property name, found ${describe(i)}`);
      i++;
      value(depth + 1);
      skipWhitespace();
      if (template[i] === ',') {
        i++;
        continue;
      }
      if (template[i] === '}') {
        i++;
        return;
      }
      fail(i, `expected "," or "}" after a property value, found ${describe(i)}`);
    }
  };
  const array = (depth: number) => {
    i++;
    skipWhitespace();
    if (template[i] === ']') {
      i++;
      return;
    }
    for (;;) {
      value(depth + 1);
      skipWhitespace();
      if (template[i] === ',') {
        i++;
        continue;
      }
      if (template[i] === ']') {
        i++;
        return;
      }
      fail(i, `expected "," or "]" after an array element, found ${describe(i)}`);
    }
  };

  value(0);
  skipWhitespace();
  if (i < template.length) fail(i, `expected the end of the template after the JSON value, found ${describe(i)}`);
  if (literalFrom < template.length) parts.push(template.slice(literalFrom));
  return parts;
}

// Alerts are few and their templates fixed, so compiled ones are kept; the bound keeps a
// stream of distinct templates (a test, a misuse) from growing it without end.
const compiled = new Map<string, Part[]>();
const COMPILED_MAX = 256;

function compiledTemplate(template: string): Part[] {
  let parts = compiled.get(template);
  if (!parts) {
    parts = compile(template);
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    compiled.set(template, parts);
  }
  return parts;
}

function placeholderValue(n: Notification, name: Placeholder): string | Record<string, unknown> {
  switch (name) {
    case 'alert_name': return n.alert.name;
    case 'message': return n.message;
    case 'timestamp': return n.timestamp;
    case 'severity': return n.alert.severity;
    case 'metrics': return n.metrics;
  }
}

function render(parts: readonly Part[], n: Notification): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    const value = placeholderValue(n, part.name);
    if (!part.inString) out += JSON.stringify(value);
    // Inside a string: the value as escaped string content (metrics: its JSON text), without quotes.
    else out += JSON.stringify(typeof value === 'string' ? value : JSON.stringify(value)).slice(1, -1);
  }
  return out;
}

/** Values that try every escaping rule: quotes, backslashes, line breaks, controls, non-BMP characters, a lone surrogate. */
const SAMPLE: Notification = {
  eventId: 'evt_sample',
  event: 'alert.test',
  alert: { id: 'alert_sample', name: 'Sample "alert" \\ {{x}}', severity: 'critical', condition: 'error_rate > 0.05' },
  message: 'line 1\nline 2\t"quoted" \\ </script> \u0000 \u2028 é 🚨 \ud800',
  timestamp: '2026-01-01T00:00:00.000Z',
  metrics: { error_rate: 0.12, threshold: 0.05, endpoint: '/v1/"search"', missing: null },
};

/**
 * Whether a webhook payload template renders to valid JSON for any notification: the check to
 * run when an alert is saved. Refuses unknown placeholders, an unclosed "{{", and anything that
 * is not JSON once placeholders are read as values or string content, with the 0-based
 * character position in the template and what was expected there.
 */
export function checkPayloadTemplate(template: string): { ok: true } | { ok: false; position: number; reason: string } {
  let parts: Part[];
  try {
    parts = compiledTemplate(template);
  } catch (error) {
    if (error instanceof TemplateError) return { ok: false, position: error.position, reason: error.reason };
    throw error;
  }
  // The grammar above guarantees this; rendering with awkward values and parsing proves it.
  try {
    JSON.parse(render(parts, SAMPLE));
  } catch (error) {
    return { ok: false, position: 0, reason: `does not render to valid JSON: ${(error as Error).message}` };
  }
  return { ok: true };
}

/** The JSON body POSTed when an alert has no template. */
export function defaultWebhookPayload(n: Notification): Record<string, unknown> {
  return {
    event: n.event,
    alert_id: n.alert.id,
    alert_name: n.alert.name,
    severity: n.alert.severity,
    status: notificationStatus(n.event),
    message: n.message,
    timestamp: n.timestamp,
    condition: n.alert.condition,
    metrics: n.metrics,
  };
}

/**
 * The raw JSON body of a webhook delivery: the template rendered, or the default payload when
 * there is none (undefined or empty).
 * @throws TemplateError when the template is not valid (checkPayloadTemplate would have said so).
 */
export function renderWebhookPayload(n: Notification, template?: string): string {
  if (template === undefined || template === '') return JSON.stringify(defaultWebhookPayload(n));
  return render(compiledTemplate(template), n);
}

// ---------------------------------------------------------------------------------------------
// Slack

/** Slack's control characters in mrkdwn text, escaped as its formatting reference asks (only these three). */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  // Code points, so a surrogate pair is never cut in half.
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

const STATUS_WORD = { firing: 'FIRING', resolved: 'RESOLVED', test: 'TEST' } as const;
const SLACK_ICON = { critical: ':red_circle:', warning: ':large_orange_circle:', info: ':large_blue_circle:' } as const;

function metricText(value: number | string | null): string {
  return value === null ? 'n/a' : String(value);
}

/**
 * The body of a Slack incoming webhook: `text` (the notification's fallback, shown in
 * notifications and by clients that cannot show blocks) and `blocks`: a header, a section with
 * the message and fields (severity, condition, up to 8 metrics), and a context line with the
 * alert id and the time (Slack's <!date> token, shown in the reader's time zone, with the ISO
 * time as fallback). User text in mrkdwn is escaped (&, <, >) so it cannot mention, link or
 * break formatting; plain_text (the header) is shown as it is. Lengths are kept within Slack's
 * limits (header 150, section 3000, field 2000 characters).
 */
export function slackPayload(n: Notification): { text: string; blocks: object[] } {
  const status = notificationStatus(n.event);
  const icon = status === 'resolved' ? ':white_check_mark:' : status === 'test' ? ':test_tube:' : SLACK_ICON[n.alert.severity];
  const word = STATUS_WORD[status];
  const metrics = Object.entries(n.metrics).slice(0, 8);
  const seconds = Math.floor(Date.parse(n.timestamp) / 1000);
  const when = Number.isFinite(seconds) ? `<!date^${seconds}^{date_short_pretty} {time_secs}|${escapeSlack(n.timestamp)}>` : escapeSlack(n.timestamp);
  return {
    text: truncate(`${word} [${n.alert.severity}] ${escapeSlack(n.alert.name)}: ${escapeSlack(n.message)}`, 3000),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: truncate(`${word}: ${n.alert.name}`.replace(/\s+/g, ' '), 150), emoji: true } },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: truncate(`${icon} ${escapeSlack(n.message)}`, 3000) },
        fields: [
          { type: 'mrkdwn', text: `*Severity*\n${n.alert.severity}` },
          { type: 'mrkdwn', text: truncate(`*Condition*\n${escapeSlack(n.alert.condition)}`, 2000) },
          ...metrics.map(([name, value]) => ({ type: 'mrkdwn', text: truncate(`*${escapeSlack(name)}*\n${escapeSlack(metricText(value))}`, 2000) })),
        ],
      },
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: truncate(`Alert ${escapeSlack(n.alert.id)} · ${n.event} · ${when}`, 2000) }],
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Email

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const SEVERITY_COLOUR = { critical: '#b91c1c', warning: '#b45309', info: '#1d4ed8' } as const;

/**
 * Subject, plain text and HTML of an email notification. The HTML escapes every value (alert
 * names and messages are user text), uses inline styles only, and says what the text says.
 */
export function emailMessage(n: Notification): { subject: string; text: string; html: string } {
  const status = notificationStatus(n.event);
  const word = STATUS_WORD[status];
  // Header folding is the mailer's job, but a line break in a subject must not start a new header.
  const subject = truncate(`[${word}] ${n.alert.name} (${n.alert.severity})`.replace(/[\r\n]+/g, ' '), 200);
  const metrics = Object.entries(n.metrics);
  const rows: Array<[string, string]> = [
    ['Alert', n.alert.name],
    ['Status', status],
    ['Severity', n.alert.severity],
    ['Condition', n.alert.condition],
    ['Time', n.timestamp],
    ...metrics.map(([name, value]): [string, string] => [name, metricText(value)]),
    ['Alert id', n.alert.id],
    ['Event', `${n.event} (${n.eventId})`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const text = [`${word}: ${n.alert.name}`, '', n.message, '', ...rows.map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${value}`), ''].join('\n');
  const cell = 'padding:4px 12px 4px 0;vertical-align:top;';
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;color:#111827;">',
    `<h2 style="margin:0 0 8px;color:${status === 'resolved' ? '#15803d' : SEVERITY_COLOUR[n.alert.severity]};">${word}: ${escapeHtml(n.alert.name)}</h2>`,
    `<p style="margin:0 0 16px;white-space:pre-wrap;">${escapeHtml(n.message)}</p>`,
    '<table style="border-collapse:collapse;">',
    ...rows.map(([label, value]) => `<tr><th style="${cell}text-align:left;font-weight:600;">${escapeHtml(label)}</th><td style="${cell}">${escapeHtml(value)}</td></tr>`),
    '</table>',
    '</body></html>',
    '',
  ].join('\n');
  return { subject, text, html };
}
