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
 * The first version's form of a record: a JSON array of positional arrays, one per entry, in this
 * order. Records of that form may still wait in a stream written before an upgrade; writers read them.
 */
const V1_FIELDS = [
  'entryId', 'requestId', 'occurredAt', 'principalId', 'accountId', 'mode', 'method', 'endpoint', 'status', 'responseTimeMs',
  'ipAddress', 'userAgent', 'requestSize', 'responseSize', 'cacheHit', 'region', 'errorCode', 'errorParameter', 'extra',
] as const satisfies readonly (keyof AuditEntry)[];

/**
 * The fields an entry may share with the entry before it in a record, in the order of the bits
 * that say which ones it does not. The entries a busy process answers in one turn mostly come
 * from the same clients with the same keys to the same endpoints, so most of an entry is the
 * entry before it: writing only what changed makes a record a fifth of the bytes, and every
 * answered request pays for writing, sending and reading its entry. These bits are fixed: a field
 * added later takes the bit after ENTRY_ID_BIT, and a writer refuses a row with a bit it does not
 * know (counted as unreadable, with the rows after it).
 */
const SHARED = [
  'principalId', 'accountId', 'mode', 'method', 'endpoint', 'status', 'ipAddress', 'userAgent', 'requestSize', 'responseSize',
  'cacheHit', 'region', 'errorCode', 'errorParameter',
] as const satisfies readonly (keyof AuditEntry)[];
/** The bit after SHARED's: `extra` differs from the entry before's (compared as JSON text). */
const EXTRA_BIT = 1 << SHARED.length;
/** The entry's own id differs from its request id (a client brought, and may reuse, its request id). */
const ENTRY_ID_BIT = EXTRA_BIT << 1;
const KNOWN_BITS = (ENTRY_ID_BIT << 1) - 1;
const FORMAT = 2;

type Shared = (typeof SHARED)[number];

/**
 * Entries as the field of one Redis stream record: `[2, row, row, …]`, each row
 * `[bits, requestId, ms since the row before (the first: since the epoch), responseTimeMs,
 * …the fields whose bits are set]`, a field's bit set when it differs from the entry before
 * (all set for the first). `extra` travels as its JSON text, which is how the log stores it.
 */
export function encodeEntries(entries: readonly AuditEntry[]): string {
  const rows: unknown[] = [FORMAT];
  let previous: AuditEntry | undefined;
  let previousExtra: string | null = null;
  let previousTime = 0;
  for (const entry of entries) {
    const row: unknown[] = [0, entry.requestId, entry.occurredAt.getTime() - previousTime, entry.responseTimeMs];
    let bits = 0;
    for (let i = 0; i < SHARED.length; i++) {
      const value = entry[SHARED[i]!];
      if (previous === undefined || value !== previous[SHARED[i]!]) {
        bits |= 1 << i;
        row.push(value);
      }
    }
    const extra = entry.extra === null ? null : JSON.stringify(entry.extra);
    if (previous === undefined || extra !== previousExtra) {
      bits |= EXTRA_BIT;
      row.push(extra);
    }
    if (entry.entryId !== entry.requestId) {
      bits |= ENTRY_ID_BIT;
      row.push(entry.entryId);
    }
    row[0] = bits;
    rows.push(row);
    previous = entry;
    previousExtra = extra;
    previousTime = entry.occurredAt.getTime();
  }
  return JSON.stringify(rows);
}

/** The entries back from a stream field; those this version cannot read are left out and counted. */
export function decodeEntries(text: string): { entries: AuditEntry[]; unreadable: number } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { entries: [], unreadable: 1 };
  }
  if (Array.isArray(raw) && raw[0] === FORMAT) return decodeRows(raw.slice(1));
  return decodeFirstVersion(raw);
}

function decodeRows(rows: unknown[]): { entries: AuditEntry[]; unreadable: number } {
  const entries: AuditEntry[] = [];
  let previous: AuditEntry | undefined;
  let previousTime = 0;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    const bits = Array.isArray(row) ? row[0] : undefined;
    // Every row after an unreadable one is unreadable too: it says only what changed since.
    if (!Array.isArray(row) || typeof bits !== 'number' || (bits & ~KNOWN_BITS) !== 0 || (previous === undefined && (bits & (ENTRY_ID_BIT - 1)) !== ENTRY_ID_BIT - 1)
      || typeof row[1] !== 'string' || typeof row[2] !== 'number' || typeof row[3] !== 'number') {
      return { entries, unreadable: rows.length - r };
    }
    const entry = { ...previous } as AuditEntry;
    entry.requestId = row[1] as string;
    previousTime += row[2] as number;
    entry.occurredAt = new Date(previousTime);
    entry.responseTimeMs = row[3] as number;
    let at = 4;
    for (let i = 0; i < SHARED.length; i++) {
      if (bits & (1 << i)) (entry as unknown as Record<Shared, unknown>)[SHARED[i]!] = row[at++];
    }
    if (bits & EXTRA_BIT) {
      const extra = typeof row[at] === 'string' ? parseObject(row[at] as string) : null;
      if (row[at++] !== null && extra === null) return { entries, unreadable: rows.length - r };
      entry.extra = extra;
    }
    entry.entryId = bits & ENTRY_ID_BIT ? (row[at++] as string) : entry.requestId;
    if (typeof entry.entryId !== 'string' || typeof entry.status !== 'number') return { entries, unreadable: rows.length - r };
    entries.push(entry);
    previous = entry;
  }
  return { entries, unreadable: 0 };
}

/** An object from JSON text; null when the text is not one. */
function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function decodeFirstVersion(raw: unknown): { entries: AuditEntry[]; unreadable: number } {
  const entries: AuditEntry[] = [];
  let unreadable = 0;
  for (const item of Array.isArray(raw) ? (raw as unknown[]) : [raw]) {
    if (!Array.isArray(item) || item.length < V1_FIELDS.length || typeof item[0] !== 'string' || typeof item[2] !== 'number' || typeof item[8] !== 'number') {
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
