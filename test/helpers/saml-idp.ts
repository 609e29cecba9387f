import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SignedXml } from 'xml-crypto';

/** A key pair and its self-signed certificate, made by openssl for this run. */
export interface SigningIdentity {
  key: string;
  cert: string;
}

export function newSigningIdentity(commonName: string): SigningIdentity {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sev-idp-'));
  try {
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${commonName}`, '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' });
    return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface AssertionOptions {
  issuer: string;
  /** The NameID (an e-mail address in the emailAddress format). */
  email: string;
  audience: string;
  /** The ACS URL: the response's Destination and the subject confirmation's Recipient. */
  destination: string;
  recipient?: string;
  /** When the assertion stops being valid; default five minutes from now. */
  notOnOrAfter?: Date;
  notBefore?: Date;
  inResponseTo?: string;
  assertionId?: string;
  /** Signs the assertion with this identity. */
  signer: SigningIdentity;
  /** Changes the signed XML afterwards (a tampered assertion). */
  tamper?: (xml: string) => string;
}

/**
 * A SAML Response as an identity provider posts it (base64), its assertion signed by
 * xml-crypto (RSA-SHA256, exclusive canonicalization, enveloped), the signature after the
 * assertion's Issuer as the schema requires.
 */
export function samlResponse(options: AssertionOptions): string {
  const now = new Date();
  const notBefore = (options.notBefore ?? new Date(now.getTime() - 60_000)).toISOString();
  const notOnOrAfter = (options.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000)).toISOString();
  const assertionId = options.assertionId ?? `_a${randomUUID().replace(/-/g, '')}`;
  const inResponseTo = options.inResponseTo ? ` InResponseTo="${options.inResponseTo}"` : '';
  const assertion = [
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${assertionId}" Version="2.0" IssueInstant="${now.toISOString()}">`,
    `<saml:Issuer>${options.issuer}</saml:Issuer>`,
    '<saml:Subject>',
    `<saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${options.email}</saml:NameID>`,
    '<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">',
    `<saml:SubjectConfirmationData NotOnOrAfter="${notOnOrAfter}" Recipient="${options.recipient ?? options.destination}"${inResponseTo}/>`,
    '</saml:SubjectConfirmation>',
    '</saml:Subject>',
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}">`,
    `<saml:AudienceRestriction><saml:Audience>${options.audience}</saml:Audience></saml:AudienceRestriction>`,
    '</saml:Conditions>',
    `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="_s${randomUUID().replace(/-/g, '')}">`,
    '<saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext>',
    '</saml:AuthnStatement>',
    '</saml:Assertion>',
  ].join('');
  const signer = new SignedXml({
    privateKey: options.signer.key,
    publicCert: options.signer.cert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signer.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  signer.computeSignature(assertion, { location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' } });
  const signed = (options.tamper ?? ((xml: string) => xml))(signer.getSignedXml());
  const response = [
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomUUID().replace(/-/g, '')}" Version="2.0" IssueInstant="${now.toISOString()}" Destination="${options.destination}"${inResponseTo}>`,
    `<saml:Issuer>${options.issuer}</saml:Issuer>`,
    '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>',
    signed,
    '</samlp:Response>',
  ].join('');
  return Buffer.from(response).toString('base64');
}
