import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  raw: Buffer;
  secure: boolean;
  user: unknown;
  from: string;
  to: string[];
}

export const SMTP_USER = 'alerts';
export const SMTP_PASSWORD = 'correct horse battery staple';
/** A recipient the server refuses with 550. */
export const REFUSED_RECIPIENT = 'nobody@example.test';

export interface LocalSmtp {
  port: number;
  /** Every message accepted, in order. */
  mails: ReceivedMail[];
  /** The server's self-signed certificate: what SMTP_TLS_CA points the service at. */
  certFile: string;
  /** The service's SMTP_* settings for this server: STARTTLS verified against certFile, AUTH. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on 127.0.0.1 that offers STARTTLS with a self-signed certificate (made by
 * openssl for this run) and requires AUTH after it, keeping every message it accepts.
 */
export async function startSmtpServer(): Promise<LocalSmtp> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sev-smtp-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', keyFile, '-out', certFile,
  ], { stdio: 'ignore' });
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    key: readFileSync(keyFile),
    cert: readFileSync(certFile),
    logger: false,
    authMethods: ['PLAIN', 'LOGIN'],
    // AUTH only after STARTTLS (smtp-server's default without allowInsecureAuth).
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      if (address.address !== REFUSED_RECIPIENT) return callback();
      const error = new Error('mailbox unavailable') as Error & { responseCode: number };
      error.responseCode = 550;
      callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const from = session.envelope.mailFrom;
        mails.push({
          raw: Buffer.concat(chunks),
          secure: session.secure,
          user: session.user,
          from: from ? from.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    mails,
    certFile,
    env: {
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(port),
      SMTP_USER,
      SMTP_PASSWORD,
      SMTP_FROM: 'Alerts <alerts@sev.test>',
      // The server's own (self-signed) certificate is the one trusted: verified, not skipped.
      SMTP_TLS_CA: certFile,
    },
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
