/**
 * SAML 2.0 single sign-on, this service being the service provider of each account that
 * configures an identity provider (docs/teams-and-sso.md). The XML signature, the audience and
 * the time window are checked by @node-saml/node-saml against the account's certificate; this
 * module adds what the library leaves to its caller: the issuer, the destination and recipient,
 * replay (each assertion id once until it expires), the mapping of the e-mail address to a team
 * member, and where the browser goes next (a path on this service only).
 */
import { X509Certificate } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Redis } from 'ioredis';
import type { Profile, SAML } from '@node-saml/node-saml';
import type { Clock } from '../clock.js';
import type { Database } from '../storage/schema.js';
import { ApiError } from '../errors/catalogue.js';
import { DEFAULT_ACCOUNT_ID } from '../auth/key-service.js';
import { operatorOnly, type Principal } from '../auth/principal.js';
import type { MemberGrant } from '../auth/member.js';
import { deleteSsoConfig, findSsoConfig, saveSsoConfig, type SsoConfig } from './sso.repository.js';
import { firstUse, RedisRequestCache, REQUEST_TTL_MS } from './saml-state.js';

export interface SsoInput {
  provider: string;
  entity_id: string;
  sso_url: string;
  certificate: string;
  account_id?: string;
}

export interface SsoServiceDeps {
  db: Kysely<Database>;
  redis: Redis;
  prefix: string;
  clock: Clock;
  /** PUBLIC_URL, or undefined: the origin each request was addressed to. */
  publicUrl: string | undefined;
  /** Throws NOT_FOUND for an account that does not exist. */
  getAccount(id: string): Promise<unknown>;
  /** The account's member with this address, with its team's scopes. */
  memberForSignIn(accountId: string, email: string): Promise<MemberGrant | undefined>;
}

/** The service provider's addresses for one account. */
export interface ServiceProvider {
  entity_id: string;
  acs_url: string;
  metadata_url: string;
  login_url: string;
}

/** Clock difference tolerated between the identity provider and this service. */
const CLOCK_SKEW_MS = 60_000;
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
/** Where a sign-in lands without a RelayState naming a path. */
export const DEFAULT_RETURN_PATH = '/console';
/** Attributes an identity provider may carry the address in when the NameID is not one. */
const EMAIL_ATTRIBUTES = ['email', 'mail', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress'];
const ID = /^[!-~]{1,40}$/;

type SamlLibrary = typeof import('@node-saml/node-saml');
let samlLibrary: Promise<SamlLibrary> | undefined;
/**
 * node-saml and its XML stack load on the first SSO request, not at start: every process of a
 * deployment that never configures SSO would otherwise pay for them (a quarter to half a second
 * of start-up on a loaded two-core machine) for nothing.
 */
function loadSaml(): Promise<SamlLibrary> {
  samlLibrary ??= import('@node-saml/node-saml');
  return samlLibrary;
}

export class SsoService {
  constructor(private readonly deps: SsoServiceDeps) {}

  /** Creates or replaces the account's identity provider. */
  async configure(actor: Principal, input: SsoInput, origin: string): Promise<Record<string, unknown>> {
    const accountId = this.accountOf(actor, input.account_id);
    if (actor.mode === 'test') {
      throw new ApiError('INSUFFICIENT_PERMISSIONS', { required_permission: 'admin:live', current_plan: actor.plan }, 'Single sign-on is configured with a live key.');
    }
    await this.deps.getAccount(accountId);
    const certificate = parseCertificate(input.certificate);
    const now = this.deps.clock.now();
    const existing = await findSsoConfig(this.deps.db, accountId);
    await saveSsoConfig(this.deps.db, {
      accountId, provider: input.provider, entityId: input.entity_id, ssoUrl: input.sso_url, certificate: certificate.toString(),
      createdAt: existing?.createdAt ?? now, updatedAt: now,
    });
    return this.get(actor, accountId, origin);
  }

  async get(actor: Principal, accountId: string | undefined, origin: string): Promise<Record<string, unknown>> {
    const config = await this.configured(this.accountOf(actor, accountId));
    const certificate = new X509Certificate(config.certificate);
    return {
      account_id: config.accountId,
      provider: config.provider,
      entity_id: config.entityId,
      sso_url: config.ssoUrl,
      certificate: config.certificate,
      certificate_fingerprint: certificate.fingerprint256,
      certificate_expires_at: new Date(certificate.validTo).toISOString(),
      service_provider: this.serviceProvider(config.accountId, origin),
      created_at: config.createdAt.toISOString(),
      updated_at: config.updatedAt.toISOString(),
    };
  }

  async remove(actor: Principal, accountId: string | undefined): Promise<Record<string, unknown>> {
    const id = this.accountOf(actor, accountId);
    if (!(await deleteSsoConfig(this.deps.db, id))) throw notConfigured(id);
    return { account_id: id, deleted: true };
  }

  /**
   * The service provider's metadata for the identity provider, served before the identity
   * provider is configured (its administrator needs it first): the entity ID, the assertion
   * consumer service (HTTP-POST) and the NameID format asked for. Nothing in it is secret.
   */
  async metadata(accountId: string, origin: string): Promise<string> {
    await this.account(accountId);
    const sp = this.serviceProvider(accountId, origin);
    return [
      '<?xml version="1.0" encoding="UTF-8"?>',
      `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${xmlAttribute(sp.entity_id)}">`,
      '  <md:SPSSODescriptor AuthnRequestsSigned="false" WantAssertionsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">',
      `    <md:NameIDFormat>${EMAIL_FORMAT}</md:NameIDFormat>`,
      `    <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${xmlAttribute(sp.acs_url)}" index="1" isDefault="true"/>`,
      '  </md:SPSSODescriptor>',
      '</md:EntityDescriptor>',
      '',
    ].join('\n');
  }

  /** SP-initiated sign-in: the identity provider's URL with an AuthnRequest (HTTP-Redirect), its id remembered. */
  async loginUrl(accountId: string, returnTo: string | undefined, origin: string): Promise<string> {
    const config = await this.configured((await this.account(accountId)));
    return (await this.saml(config, origin)).getAuthorizeUrlAsync(safeReturnPath(returnTo), undefined, {});
  }

  /**
   * The assertion consumer service: the member a signed SAML response names, and the path to send
   * the browser to, or SSO_ASSERTION_INVALID with the reason.
   */
  async consume(accountId: string, form: { SAMLResponse: string; RelayState?: string }, origin: string): Promise<{ member: MemberGrant; returnTo: string }> {
    const config = await this.configured(await this.account(accountId));
    const sp = this.serviceProvider(config.accountId, origin);
    let profile: Profile | null | undefined;
    try {
      ({ profile } = await (await this.saml(config, origin)).validatePostResponseAsync({ SAMLResponse: form.SAMLResponse }));
    } catch (error) {
      throw refused(libraryReason((error as Error).message), (error as Error).message);
    }
    if (!profile) throw refused('invalid_response', 'The SAML response holds no assertion.');
    if (profile.issuer !== config.entityId) throw refused('wrong_issuer', `The assertion's issuer is ${String(profile.issuer)}, not the configured ${config.entityId}.`);
    const assertion = assertionFacts(profile);
    const destination = await responseDestination(profile.getSamlResponseXml?.() ?? '');
    if (destination !== null && destination !== sp.acs_url) throw refused('wrong_destination', `The response is addressed to ${destination}, not ${sp.acs_url}.`);
    if (assertion.recipient !== sp.acs_url) throw refused('wrong_destination', `The assertion's recipient is ${String(assertion.recipient)}, not ${sp.acs_url}.`);
    if (assertion.id === undefined) throw refused('invalid_response', 'The assertion has no ID.');
    if (assertion.notOnOrAfter === undefined) throw refused('outside_time_window', 'The assertion states no NotOnOrAfter: it would never expire.');
    const now = Date.now();
    if (!(await firstUse(this.deps.redis, this.statePrefix(config.accountId), assertion.id, assertion.notOnOrAfter + CLOCK_SKEW_MS, now))) {
      throw refused('replayed', `Assertion ${assertion.id} has been used already.`);
    }
    const email = emailOf(profile);
    if (email === undefined) throw refused('no_email', 'The assertion names no e-mail address (NameID in the emailAddress format, or an email or mail attribute).');
    const member = await this.deps.memberForSignIn(config.accountId, email);
    if (!member) throw refused('unknown_member', `${email} is not a member of any team of this account.`);
    return { member, returnTo: safeReturnPath(form.RelayState) };
  }

  serviceProvider(accountId: string, origin: string): ServiceProvider {
    const base = `${this.deps.publicUrl ?? origin}/v1/sso/${encodeURIComponent(accountId)}`;
    return { entity_id: `${base}/metadata`, acs_url: `${base}/acs`, metadata_url: `${base}/metadata`, login_url: `${base}/login` };
  }

  private async saml(config: SsoConfig, origin: string): Promise<SAML> {
    const sp = this.serviceProvider(config.accountId, origin);
    const { SAML, ValidateInResponseTo } = await loadSaml();
    return new SAML({
      callbackUrl: sp.acs_url,
      entryPoint: config.ssoUrl,
      issuer: sp.entity_id,
      audience: sp.entity_id,
      idpCert: config.certificate,
      // The assertion must be signed (the response may be too): the assertion is what is trusted.
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      acceptedClockSkewMs: CLOCK_SKEW_MS,
      identifierFormat: EMAIL_FORMAT,
      disableRequestedAuthnContext: true,
      // SP-initiated answers must name a request this service sent; IdP-initiated ones name none.
      validateInResponseTo: ValidateInResponseTo.ifPresent,
      requestIdExpirationPeriodMs: REQUEST_TTL_MS,
      cacheProvider: new RedisRequestCache(this.deps.redis, this.statePrefix(config.accountId)),
    });
  }

  private statePrefix(accountId: string): string {
    return `${this.deps.prefix}:sso:${accountId}`;
  }

  private accountOf(actor: Principal, accountId: string | undefined): string {
    const id = accountId ?? actor.accountId ?? DEFAULT_ACCOUNT_ID;
    if (!actor.permissions.has('operator') && id !== actor.accountId) throw operatorOnly(actor);
    return id;
  }

  private async account(id: string): Promise<string> {
    if (!ID.test(id)) throw new ApiError('NOT_FOUND', { resource: 'account', id }, `No account with id ${id}.`);
    await this.deps.getAccount(id);
    return id;
  }

  private async configured(accountId: string): Promise<SsoConfig> {
    const config = ID.test(accountId) ? await findSsoConfig(this.deps.db, accountId) : undefined;
    if (!config) throw notConfigured(accountId);
    return config;
  }
}

/** A certificate as PEM, or its base64 body alone (as identity providers' consoles often show it). */
function parseCertificate(text: string): X509Certificate {
  const trimmed = text.trim();
  const pem = trimmed.includes('-----BEGIN CERTIFICATE-----')
    ? trimmed
    : `-----BEGIN CERTIFICATE-----\n${trimmed.replace(/\s+/g, '').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----`;
  try {
    return new X509Certificate(pem);
  } catch (error) {
    throw new ApiError('INVALID_PARAMETER', { parameter: 'certificate', reason: `is not an X.509 certificate (${(error as Error).message})`, provided: `${trimmed.slice(0, 40)}…` });
  }
}

/** RelayState as a path on this service; anything else (another host, a scheme, //host) lands on the default. */
export function safeReturnPath(relayState: string | undefined): string {
  if (relayState === undefined || !/^\/(?![/\\])[!-~]*$/.test(relayState)) return DEFAULT_RETURN_PATH;
  return relayState;
}

/** The catalogue's reason for what node-saml refused. */
function libraryReason(message: string): string {
  if (/signature/i.test(message)) return 'invalid_signature';
  if (/audience/i.test(message)) return 'wrong_audience';
  if (/expired|not yet valid|too old/i.test(message)) return 'outside_time_window';
  if (/InResponseTo/.test(message)) return 'unknown_request';
  return 'invalid_response';
}

interface AssertionFacts {
  id: string | undefined;
  recipient: string | undefined;
  /** The earliest NotOnOrAfter of the conditions and the subject confirmation, epoch ms. */
  notOnOrAfter: number | undefined;
}

type XmlNode = { $?: Record<string, string> } & Record<string, unknown>;

/** Facts of the (signature-checked) assertion, from node-saml's parsed copy. */
function assertionFacts(profile: Profile): AssertionFacts {
  const assertion = (profile.getAssertion?.() as { Assertion?: XmlNode } | undefined)?.Assertion;
  const first = (node: unknown, name: string): XmlNode | undefined => ((node as Record<string, XmlNode[] | undefined> | undefined)?.[name])?.[0];
  const confirmation = first(first(first(assertion, 'Subject'), 'SubjectConfirmation'), 'SubjectConfirmationData');
  const conditions = first(assertion, 'Conditions');
  const ends = [conditions?.$?.NotOnOrAfter, confirmation?.$?.NotOnOrAfter].filter((v): v is string => v !== undefined).map(Date.parse).filter(Number.isFinite);
  return {
    id: assertion?.$?.ID,
    recipient: confirmation?.$?.Recipient,
    notOnOrAfter: ends.length > 0 ? Math.min(...ends) : undefined,
  };
}

/** The Destination attribute of the SAML Response, or null when it has none. */
async function responseDestination(xml: string): Promise<string | null> {
  if (xml === '') return null;
  // Loaded with node-saml, whose parser it is.
  const { DOMParser } = await import('@xmldom/xmldom');
  const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
  return root?.getAttribute('Destination') || null;
}

function emailOf(profile: Profile): string | undefined {
  const nameId = profile.nameID;
  if (typeof nameId === 'string' && (profile.nameIDFormat === EMAIL_FORMAT || /^[^\s@]+@[^\s@]+$/.test(nameId))) return nameId;
  for (const attribute of EMAIL_ATTRIBUTES) {
    const value = (profile as unknown as Record<string, unknown>)[attribute];
    const text = Array.isArray(value) ? value[0] : value;
    if (typeof text === 'string' && /^[^\s@]+@[^\s@]+$/.test(text.trim())) return text.trim();
  }
  return undefined;
}

function xmlAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
}

function refused(reason: string, message: string): ApiError {
  return new ApiError('SSO_ASSERTION_INVALID', { reason }, message);
}

function notConfigured(accountId: string): ApiError {
  return new ApiError('NOT_FOUND', { resource: 'sso_configuration', id: accountId }, `Account ${accountId} has no single sign-on configured.`);
}
