/**
 * Live or sandbox: the mode of the key a request comes with. Everything the service keeps is
 * kept per mode, so a sandbox (`test`) key never sees or changes live data: the index, stored
 * extractions, the result cache, crawls, usage and audit.
 */
export type Mode = 'live' | 'test';
