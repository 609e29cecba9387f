import type { AppContext } from '../context.js';
import type { Services } from '../deps.js';
import type { RouteDoc } from '../openapi.js';

/** An endpoint: its contract (feeds routing, auth and the OpenAPI document) and its handler. */
export interface Route extends RouteDoc {
  operationId: string;
  handler: (ctx: AppContext, services: Services) => Promise<void>;
}
