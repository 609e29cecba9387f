/**
 * The service's notion of "now" for everything with a deadline in the data: key expiry, rotation
 * grace, scheduled revocation, usage periods. One seam, so a test can move time forward by a day
 * instead of waiting for it.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
