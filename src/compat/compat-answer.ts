/**
 * What a compatibility endpoint answers: the vendor's body, and what it accepted but could not
 * honour, said in X-Compat-Warning (and, where the vendor's body has a place for it, there too).
 */
import { ApiError } from '../errors/catalogue.js';
import type { Caller } from '../auth/principal.js';

export interface CompatAnswer<T> {
  body: T;
  warnings: string[];
}

/** A vendor parameter the service refuses rather than pretend to honour. */
export function unsupported(parameter: string, reason: string, provided: unknown): ApiError {
  return new ApiError('INVALID_PARAMETER', {
    parameter, reason: `is not supported: ${reason}`, provided: typeof provided === 'string' || typeof provided === 'number' || typeof provided === 'boolean' ? provided : JSON.stringify(provided),
  }, `${parameter} is not supported: ${reason}`);
}

/** A parameter accepted and ignored: the warning that says so. */
export function ignored(parameter: string, reason: string): string {
  return `${parameter} ignored: ${reason}`;
}

/**
 * The caller of the n-th job of one request that runs several (one extraction per URL): a job's
 * id is its request's id, so each needs one of its own, or they would all be the first.
 */
export function partOf(caller: Caller, n: number): Caller {
  const suffix = `-${n}`;
  // Request ids are stored in columns of 64 characters, and a client may send one that long.
  return { ...caller, requestId: `${caller.requestId.slice(0, REQUEST_ID_MAX - suffix.length)}${suffix}` };
}

const REQUEST_ID_MAX = 64;
