/** Where captured audit entries wait for a writer: one Redis stream per deployment (queue prefix). */
export function auditStreamKey(prefix: string): string {
  return `${prefix}:audit:entries`;
}

/** The consumer group every process's writer reads the stream through. */
export const AUDIT_WRITERS_GROUP = 'writers';

/** The field of a stream record that holds the encoded entry. */
export const ENTRY_FIELD = 'e';

/** Milliseconds since the epoch at which a stream record was added (the first part of its id). */
export function recordTime(id: string): number {
  return Number(id.slice(0, id.indexOf('-')));
}
