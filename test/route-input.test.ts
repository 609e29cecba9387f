import { expect } from 'chai';
import { ApiError } from '../src/errors/catalogue.js';
import type { AppContext } from '../src/http/context.js';
import { routeInput } from '../src/http/route-input.js';
import { ROUTES } from '../src/http/routes/index.js';
import type { Route } from '../src/http/routes/route.js';
import { schemaDocuments } from '../src/schema/request-validator.js';

/** Just what routeInput reads of a request. */
function request(body: unknown, query: Record<string, string> = {}): AppContext {
  return { request: { body }, query } as unknown as AppContext;
}

function byId(operationId: string): Route {
  return ROUTES.find((r) => r.operationId === operationId)!;
}

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('routeInput: the one place requests are validated', () => {
  it('hands the handler the body with its defaults filled in', () => {
    const input = routeInput(byId('search'), request({ query: 'tides' }));
    expect(input.body).to.deep.include({ query: 'tides', max_results: 10 });
    expect(input.query).to.equal(undefined);
  });

  it('coerces the query string to the schema\'s types', () => {
    const input = routeInput(byId('listAccounts'), request(undefined, { limit: '5' }));
    expect(input.query).to.deep.equal({ limit: 5, offset: 0 });
  });

  it('validates the body of a batch against its envelope, leaving the items to the service', () => {
    const input = routeInput(byId('indexDocuments'), request({ documents: ['not a document'] }));
    expect(input.body).to.deep.equal({ documents: ['not a document'] });
    expect(refusal(() => routeInput(byId('indexDocuments'), request({ documents: 'x' }))).details).to.include({ parameter: 'documents' });
  });

  it('runs the route\'s own check after the schema', () => {
    const schema = refusal(() => routeInput(byId('validate'), request({})));
    expect(schema.code).to.equal('INVALID_PARAMETER');
    expect(refusal(() => routeInput(byId('validate'), request({ claim: 'It is true.' }))).code).to.equal('CLAIM_TOO_VAGUE');
    const both = refusal(() => routeInput(byId('deleteIndexDocuments'), request({ urls: ['https://a.example/'], domain: 'a.example' })));
    expect(both.details).to.deep.equal({ parameter: 'body', reason: 'must contain exactly one of: urls, domain' });
  });

  it('leaves the body of a route without a body schema alone', () => {
    expect(routeInput(byId('rotateKey'), request({ anything: true }))).to.deep.equal({ body: undefined, query: undefined });
  });

  it('knows every schema a route validates with', () => {
    const known = new Set(Object.keys(schemaDocuments()));
    for (const route of ROUTES) {
      for (const id of [route.body, route.bodyEnvelope, route.query].filter((s) => s !== undefined)) {
        expect(known.has(id!), `${route.operationId}: ${id}`).to.equal(true);
      }
    }
  });
});
