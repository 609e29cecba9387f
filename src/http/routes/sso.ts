import type { SsoInput } from '../../sso/sso-service.js';
import { escapeHtml } from '../../notify/notification.js';
import { respond } from '../context.js';
import { setSessionCookie } from '../session-cookie.js';
import type { Route } from './route.js';

/*
 * SAML 2.0 single sign-on (docs/teams-and-sso.md). The configuration of an account's identity
 * provider is the admins' (POST, GET and DELETE /v1/sso); the service provider's endpoints are
 * public, per account, for the identity provider and the browser: metadata, SP-initiated
 * sign-in, and the assertion consumer service, which starts the member's console session.
 */

const CONFIG_ROUTE = { tag: 'SSO', scope: 'admin', permission: 'sso' } as const;

export const configureSso: Route<SsoInput> = {
  ...CONFIG_ROUTE,
  operationId: 'configureSso',
  method: 'POST',
  path: '/v1/sso',
  summary: "Set the account's SAML identity provider (provider, entity_id, sso_url, certificate), replacing any before",
  body: 'sso.request',
  response: 'sso.response',
  async handler(ctx, { body }, services) {
    respond(ctx, await services.sso.configure(ctx.state.principal!, body, ctx.state.origin));
  },
};

export const getSso: Route<unknown, { account_id?: string }> = {
  ...CONFIG_ROUTE,
  operationId: 'getSso',
  method: 'GET',
  path: '/v1/sso',
  summary: "The account's SAML configuration with the service provider's addresses to give the identity provider",
  query: 'sso.query',
  response: 'sso.response',
  notFound: true,
  async handler(ctx, { query }, services) {
    respond(ctx, await services.sso.get(ctx.state.principal!, query.account_id, ctx.state.origin));
  },
};

export const deleteSso: Route<unknown, { account_id?: string }> = {
  ...CONFIG_ROUTE,
  operationId: 'deleteSso',
  method: 'DELETE',
  path: '/v1/sso',
  summary: "Remove the account's SAML configuration: sign-ins through it stop at once",
  query: 'sso.query',
  response: 'sso-delete.response',
  notFound: true,
  async handler(ctx, { query }, services) {
    respond(ctx, await services.sso.remove(ctx.state.principal!, query.account_id));
  },
};

export const getSsoMetadata: Route = {
  operationId: 'getSsoMetadata',
  method: 'GET',
  path: '/v1/sso/:account_id/metadata',
  summary: "The service provider's SAML metadata for the account's identity provider (no authentication)",
  tag: 'SSO',
  media: ['application/samlmetadata+xml'],
  async handler(ctx, _input, services) {
    ctx.type = 'application/samlmetadata+xml';
    ctx.body = await services.sso.metadata(ctx.params.account_id!, ctx.state.origin);
  },
};

export const ssoLogin: Route<unknown, { return_to?: string }> = {
  operationId: 'ssoLogin',
  method: 'GET',
  path: '/v1/sso/:account_id/login',
  summary: 'SP-initiated sign-in: redirects the browser to the identity provider with an AuthnRequest (no authentication)',
  tag: 'SSO',
  query: 'sso-login.query',
  redirect: true,
  async handler(ctx, { query }, services) {
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(await services.sso.loginUrl(ctx.params.account_id!, query.return_to, ctx.state.origin));
  },
};

export const ssoAssertion: Route<{ SAMLResponse: string; RelayState?: string }> = {
  operationId: 'ssoAssertion',
  method: 'POST',
  path: '/v1/sso/:account_id/acs',
  summary: "Assertion consumer service: checks the identity provider's signed response and starts the member's console session",
  tag: 'SSO',
  form: true,
  body: 'sso-acs.request',
  media: ['text/html'],
  failures: [401],
  credentialRefusal: 'SSO_ASSERTION_INVALID',
  async handler(ctx, { body }, services) {
    const { member, returnTo } = await services.sso.consume(ctx.params.account_id!, body, ctx.state.origin);
    const { token, session } = await services.sessions.startForMember(member, 'sso');
    setSessionCookie(ctx, token, session);
    // The browser arrived here by a cross-site POST, after which a SameSite=Strict cookie is not
    // sent on a redirect; a page of this site moving on is a same-site navigation, and it is.
    const target = escapeHtml(returnTo);
    ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=${target}"><title>Signed in</title></head>`
      + `<body><p>Signed in. <a href="${target}">Continue</a>.</p></body></html>\n`;
  },
};
