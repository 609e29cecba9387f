/** The invitation e-mail: subject, plain text and HTML (every value escaped: team names are user text). Pure. */
import { escapeHtml } from '../notify/notification.js';

export interface InvitationMail {
  teamName: string;
  role: string;
  /** The single-use link, with the token in its fragment. */
  link: string;
  expiresAt: Date;
}

export function invitationMessage(mail: InvitationMail): { subject: string; text: string; html: string } {
  // A line break in a subject must not start a new header.
  const subject = `You are invited to join the team ${mail.teamName}`.replace(/[\r\n]+/g, ' ').slice(0, 200);
  const expires = mail.expiresAt.toISOString();
  const text = [
    `You are invited to join the team ${mail.teamName} as ${mail.role}.`,
    '',
    'Accept the invitation by opening this link (it works once, until ' + expires + '):',
    '',
    mail.link,
    '',
    'If you did not expect this invitation, ignore this message.',
    '',
  ].join('\n');
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;color:#111827;">',
    `<p>You are invited to join the team <strong>${escapeHtml(mail.teamName)}</strong> as ${escapeHtml(mail.role)}.</p>`,
    `<p><a href="${escapeHtml(mail.link)}">Accept the invitation</a> (the link works once, until ${escapeHtml(expires)}).</p>`,
    '<p>If you did not expect this invitation, ignore this message.</p>',
    '</body></html>',
    '',
  ].join('\n');
  return { subject, text, html };
}
