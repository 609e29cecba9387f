/** One request as the audit log keeps it: the fields of section 2.9, its owner and its error. */
export interface AuditEntry {
  /** Idempotency key, unique per answered request even when a client reuses its request id. */
  entryId: string;
  requestId: string;
  occurredAt: Date;
  /** The key (or `master`) that made the request; null when no key was accepted. */
  principalId: string | null;
  accountId: string | null;
  mode: string | null;
  method: string;
  endpoint: string;
  status: number;
  responseTimeMs: number;
  ipAddress: string;
  userAgent: string | null;
  requestSize: number;
  responseSize: number;
  cacheHit: boolean;
  region: string;
  errorCode: string | null;
  /** The request parameter an error names (details.parameter), for error analytics. */
  errorParameter: string | null;
  /** Endpoint-specific fields (query_hash, sources_analyzed, validation_result, ...). */
  extra: Record<string, unknown> | null;
}

/** An entry as one field of a Redis stream record: compact JSON, the time as epoch ms. */
export function encodeEntry(entry: AuditEntry): string {
  return JSON.stringify({ ...entry, occurredAt: entry.occurredAt.getTime() });
}

/** The entry back from its stream field; undefined for a record this version cannot read. */
export function decodeEntry(text: string): AuditEntry | undefined {
  try {
    const raw = JSON.parse(text) as Omit<AuditEntry, 'occurredAt'> & { occurredAt: number };
    if (typeof raw.entryId !== 'string' || typeof raw.occurredAt !== 'number' || typeof raw.status !== 'number') return undefined;
    return { ...raw, occurredAt: new Date(raw.occurredAt) };
  } catch {
    return undefined;
  }
}
