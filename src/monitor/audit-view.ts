import type { StoredEntry } from './request-log.repository.js';

/** Fields every entry has (section 2.9), then the endpoint's own, recorded by its handler. */
export function entryView(e: StoredEntry): Record<string, unknown> {
  const base: Record<string, unknown> = {
    request_id: e.requestId,
    timestamp: e.occurredAt.toISOString(),
    endpoint: e.endpoint,
    method: e.method,
    status: e.status,
    response_time: e.responseTimeMs / 1000,
    ip_address: e.ipAddress,
    user_agent: e.userAgent ?? '',
    request_size: e.requestSize,
    response_size: e.responseSize,
    cache_hit: e.cacheHit,
    region: e.region,
    key_id: e.principalId,
    ...(e.errorCode ? { error_code: e.errorCode } : {}),
  };
  for (const [name, value] of Object.entries(e.extra ?? {})) if (!(name in base)) base[name] = value;
  return base;
}

/** The columns of a CSV export: the common fields, then those of search and validate entries. */
export const CSV_COLUMNS = [
  'request_id', 'timestamp', 'endpoint', 'method', 'status', 'response_time', 'ip_address', 'user_agent', 'request_size',
  'response_size', 'cache_hit', 'region', 'key_id', 'error_code', 'query_hash', 'sources_analyzed', 'confidence_score',
  'validation_result', 'consensus_level', 'sources_checked',
] as const;

export function csvRow(values: readonly unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

/**
 * RFC 4180 quoting, and a leading quote on text a spreadsheet would run as a formula: a user
 * agent is whatever a client sent, and an export is opened by people.
 */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'string' ? value : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
