/**
 * Email notifications over SMTP (nodemailer), one pooled transport per process. The server
 * comes from configuration (SMTP_*), not from users, so it does not go through the SSRF guard.
 * TLS: SMTP_SECURE=true speaks TLS from the first byte; otherwise SMTP_STARTTLS decides
 * whether the connection must (required, the default), may (opportunistic) or must not (off)
 * be upgraded. The certificate is checked against Node's CAs or SMTP_TLS_CA.
 */
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type { Config, SmtpConfig } from '../config.js';
import type { AttemptResult } from './http-post.js';

export interface EmailContent {
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** The delivery id: the Message-ID, so a copy sent twice (a worker died after sending) is recognisably the same message. */
  deliveryId: string;
  event: string;
}

/** Whether email notifications can be sent: SMTP_HOST is set (and so SMTP_FROM). */
export function emailConfigured(config: Pick<Config, 'smtp'>): boolean {
  return config.smtp !== undefined;
}

/** The domain of an address in SMTP_FROM ("Alerts <alerts@example.com>" → example.com), for Message-IDs. */
function fromDomain(from: string): string {
  const match = /@([^\s@<>]+)>?\s*$/.exec(from);
  return match?.[1] ?? 'localhost';
}

export class EmailSender {
  private readonly transport: Transporter;
  private readonly domain: string;

  constructor(private readonly smtp: SmtpConfig, timeoutMs: number) {
    this.domain = fromDomain(smtp.from);
    this.transport = nodemailer.createTransport({
      pool: true,
      maxConnections: 2,
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      requireTLS: !smtp.secure && smtp.starttls === 'required',
      ignoreTLS: !smtp.secure && smtp.starttls === 'off',
      ...(smtp.auth ? { auth: { user: smtp.auth.user, pass: smtp.auth.pass } } : {}),
      tls: {
        rejectUnauthorized: smtp.tls.rejectUnauthorized,
        ...(smtp.tls.ca !== undefined ? { ca: smtp.tls.ca } : {}),
        minVersion: 'TLSv1.2',
      },
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    });
  }

  /** Sends one message; never throws. Refused recipients among accepted ones are reported in the note. */
  async send(mail: EmailContent): Promise<AttemptResult> {
    try {
      const info = await this.transport.sendMail({
        from: this.smtp.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: `<${mail.deliveryId}@${this.domain}>`,
        headers: { 'X-SEV-Event': mail.event, 'X-SEV-Delivery': mail.deliveryId, 'Auto-Submitted': 'auto-generated' },
      }) as { accepted?: unknown[]; rejected?: unknown[]; response?: string };
      const code = replyCode(info.response);
      const rejected = (info.rejected ?? []).map(String);
      return rejected.length > 0
        ? { ok: true, statusCode: code, note: `refused recipients: ${rejected.join(', ')}` }
        : { ok: true, statusCode: code };
    } catch (error) {
      const e = error as Error & { code?: string; responseCode?: number; response?: string };
      const detail = e.response ?? e.message;
      return { ok: false, permanent: false, statusCode: e.responseCode ?? null, error: `SMTP ${e.code ? `${e.code}: ` : ''}${detail}` };
    }
  }

  close(): void {
    this.transport.close();
  }
}

function replyCode(response: string | undefined): number | null {
  const match = /^(\d{3})\b/.exec(response ?? '');
  return match ? Number(match[1]) : null;
}
