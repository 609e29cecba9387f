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

/**
 * The order of an entry's fields in its stream form: positional arrays are about half the bytes of
 * objects and quicker to write and read, and every answered request pays for its entry's writing.
 * A new field goes at the end, so that a writer of an older version reads what it knows.
 */
const FIELDS = [
  'entryId', 'requestId', 'occurredAt', 'principalId', 'accountId', 'mode', 'method', 'endpoint', 'status', 'responseTimeMs',
  'ipAddress', 'userAgent', 'requestSize', 'responseSize', 'cacheHit', 'region', 'errorCode', 'errorParameter', 'extra',
] as const satisfies readonly (keyof AuditEntry)[];

/** Entries as the field of one Redis stream record: a JSON array of positional arrays, times as epoch ms. */
export function encodeEntries(entries: readonly AuditEntry[]): string {
  return JSON.stringify(entries.map((e) => [
    e.entryId, e.requestId, e.occurredAt.getTime(), e.principalId, e.accountId, e.mode, e.method, e.endpoint, e.status, e.responseTimeMs,
    e.ipAddress, e.userAgent, e.requestSize, e.responseSize, e.cacheHit, e.region, e.errorCode, e.errorParameter, e.extra,
  ]));
}

/** The entries back from a stream field; those this version cannot read are left out and counted. */
export function decodeEntries(text: string): { entries: AuditEntry[]; unreadable: number } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { entries: [], unreadable: 1 };
  }
  const entries: AuditEntry[] = [];
  let unreadable = 0;
  for (const item of Array.isArray(raw) ? (raw as unknown[]) : [raw]) {
    if (!Array.isArray(item) || item.length < FIELDS.length || typeof item[0] !== 'string' || typeof item[2] !== 'number' || typeof item[8] !== 'number') {
      unreadable++;
      continue;
    }
    entries.push({
      entryId: item[0], requestId: item[1], occurredAt: new Date(item[2]), principalId: item[3], accountId: item[4], mode: item[5],
      method: item[6], endpoint: item[7], status: item[8], responseTimeMs: item[9], ipAddress: item[10], userAgent: item[11],
      requestSize: item[12], responseSize: item[13], cacheHit: item[14], region: item[15], errorCode: item[16], errorParameter: item[17],
      extra: item[18],
    } as AuditEntry);
  }
  return { entries, unreadable };
}
