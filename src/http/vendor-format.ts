/**
 * Routes that speak another vendor's API (the compatibility endpoints under /compat/…) answer in
 * that vendor's shapes: their successes are the vendor's body itself, not the envelope, and their
 * failures the vendor's error body. Everything else about them (authentication, limits, quotas,
 * audit, validation against their schemas) is the service's own.
 */
import type { ApiError } from '../errors/catalogue.js';

/** A failure as a vendor's client expects it. */
export interface VendorError {
  status: number;
  body: unknown;
}

export interface VendorErrorFormat {
  /** Schema id of the error body, for the OpenAPI document. */
  schema: string;
  /**
   * The catalogued error in the vendor's format. The response also carries the catalogued code
   * in `X-Error-Code`, so the service's own code is never lost to a client or an operator.
   */
  render(error: ApiError, requestId: string): VendorError;
}

/** Header naming the catalogued code of a failure answered in a vendor's format. */
export const ERROR_CODE_HEADER = 'X-Error-Code';
