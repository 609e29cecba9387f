import type { AppContext } from '../context.js';
import type { Services } from '../deps.js';
import type { RouteDoc } from '../openapi.js';

/** A request's input as the route's schemas validated it, their defaults filled in (see route-input.ts). */
export interface RouteInput<Body = unknown, Query = unknown> {
  /** The JSON body (`{}` when none was sent); undefined on a route without a body schema. */
  body: Body;
  /** The query string, its values coerced to the schema's types; undefined on a route without a query schema. */
  query: Query;
}

/**
 * An endpoint: its contract (feeds routing, auth, validation and the OpenAPI document) and its
 * handler. `Body` and `Query` are the types the schemas promise.
 */
export interface Route<Body = unknown, Query = unknown> extends RouteDoc {
  operationId: string;
  /**
   * The schema the body is validated against when it is not the documented `body`: a batch route
   * validates its envelope only and leaves the items to its service, which checks them one by one
   * so that one bad item does not refuse the batch.
   */
  bodyEnvelope?: string;
  /** Rules of the input that the schemas cannot state, checked right after them: they throw the catalogued error. */
  check?(input: RouteInput<Body, Query>): void;
  /** Answers with validated input: calls its service and responds. */
  handler(ctx: AppContext, input: RouteInput<Body, Query>, services: Services): Promise<void>;
}
