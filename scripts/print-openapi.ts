/**
 * Prints the service's OpenAPI document, as GET /v1/openapi.json serves it, without starting
 * the service: the typed client (clients/typescript) is generated from it.
 *
 *   node dist/scripts/print-openapi.js > clients/typescript/openapi.json
 */
import { buildOpenApi } from '../src/http/openapi.js';
import { ROUTES } from '../src/http/routes/index.js';
import { VERSION } from '../src/version.js';

process.stdout.write(`${JSON.stringify(buildOpenApi(ROUTES, VERSION), null, 2)}\n`);
