import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Principal } from '../auth/principal.js';
import type { Database } from '../storage/schema.js';
import { floorHour, type TimeRange } from './audit-range.js';
import { listEntries, streamEntries, totals, type AuditFilter } from './audit-query.repository.js';
import { CSV_COLUMNS, csvRow, entryView } from './audit-view.js';
import { monitorScope, type ScopeQuery } from './monitor-scope.js';

export interface AuditQuery extends ScopeQuery {
  start_date?: string;
  end_date?: string;
  endpoint?: string;
  status?: 'success' | 'error';
  request_id?: string;
}

export interface AuditPage {
  entries: Record<string, unknown>[];
  pagination: { total: number; limit: number; offset: number; has_more: boolean };
  summary: { total_requests: number; success_rate: number; avg_response_time: number; unique_ips: number; top_endpoints: string[] };
}

const DAY_MS = 86_400_000;
const TOP_ENDPOINTS = 5;

/** GET /v1/audit and its export: entries newest first, with totals over the same filter. */
export class AuditService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    /** Raw rows older than this are deleted: a range starting earlier is read from where they begin. */
    private readonly retentionDays: number,
  ) {}

  async page(actor: Principal, query: AuditQuery & { limit: number; offset: number }): Promise<AuditPage> {
    const filter = this.filter(actor, query);
    const [rows, sums] = await Promise.all([listEntries(this.db, filter, query.limit, query.offset), totals(this.db, filter)]);
    const ranked = [...sums.byEndpoint.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    return {
      entries: rows.map(entryView),
      pagination: { total: sums.requests, limit: query.limit, offset: query.offset, has_more: query.offset + rows.length < sums.requests },
      summary: {
        total_requests: sums.requests,
        success_rate: sums.requests === 0 ? 0 : round((sums.requests - sums.errors) / sums.requests, 4),
        avg_response_time: sums.requests === 0 ? 0 : round(sums.latencyMsSum / sums.requests / 1000, 4),
        unique_ips: sums.uniqueIps,
        top_endpoints: ranked.slice(0, TOP_ENDPOINTS).map(([endpoint]) => endpoint),
      },
    };
  }

  /** Every entry of the filter as NDJSON lines or CSV rows, read a page at a time as the client reads. */
  export(actor: Principal, query: AuditQuery, format: 'ndjson' | 'csv'): Readable {
    const entries = streamEntries(this.db, this.filter(actor, query));
    async function* lines(): AsyncGenerator<string> {
      if (format === 'csv') yield csvRow(CSV_COLUMNS);
      for await (const entry of entries) {
        const view = entryView(entry);
        yield format === 'csv' ? csvRow(CSV_COLUMNS.map((c) => view[c])) : `${JSON.stringify(view)}\n`;
      }
    }
    return Readable.from(lines(), { objectMode: false });
  }

  private filter(actor: Principal, query: AuditQuery): AuditFilter {
    return {
      ...monitorScope(actor, query),
      range: this.range(query),
      ...(query.endpoint !== undefined ? { endpoint: query.endpoint } : {}),
      ...(query.status !== undefined ? { failed: query.status === 'error' } : {}),
      ...(query.request_id !== undefined ? { requestId: query.request_id } : {}),
    };
  }

  /** The dates given, within what is kept: from the retention cut-off (by the hour) to now. */
  private range(query: AuditQuery): TimeRange {
    const now = this.clock.now();
    const kept = floorHour(new Date(now.getTime() - this.retentionDays * DAY_MS));
    const start = query.start_date !== undefined ? new Date(query.start_date) : kept;
    const end = query.end_date !== undefined ? new Date(query.end_date) : new Date(now.getTime() + 1);
    return { start: start < kept ? kept : start, end };
  }
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
