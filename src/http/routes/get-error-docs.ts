import { ERROR_CATALOGUE, ERROR_CODES, suggestionFor } from '../../errors/catalogue.js';
import type { Route } from './route.js';

/** The error catalogue as data: what each `documentation` link in an error envelope points at. */
export const getErrorDocs: Route = {
  operationId: 'errorCatalogue',
  method: 'GET',
  path: '/docs/errors',
  summary: 'Every error code with its HTTP status, details fields, retry advice and suggestion (no authentication)',
  tag: 'Docs',
  async handler(ctx) {
    ctx.body = {
      errors: ERROR_CODES.map((code) => {
        const spec = ERROR_CATALOGUE[code];
        const suggestion = suggestionFor(code);
        return {
          code,
          status: spec.status,
          message: spec.message,
          details: spec.details,
          retryable: spec.retryable,
          ...(suggestion !== undefined ? { suggestion } : {}),
        };
      }),
    };
  },
};
