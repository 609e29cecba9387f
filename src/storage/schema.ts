import type { ColumnType, Generated } from 'kysely';

/** The typed shape of every table. Only *.repository.ts modules use it to speak SQL. */
export interface Database {
  extractions: ExtractionsTable;
  request_log: RequestLogTable;
  service_settings: ServiceSettingsTable;
}

export interface ExtractionsTable {
  id: Generated<number>;
  request_id: string;
  url: string;
  url_hash: string;
  final_url: string;
  domain: string;
  title: string | null;
  author: string | null;
  published_at: Date | null;
  language: string | null;
  content_text: string;
  content_hash: string;
  word_count: number;
  fetched_at: Date;
  created_at: ColumnType<Date, never, never>;
}

export interface RequestLogTable {
  id: Generated<number>;
  request_id: string;
  occurred_at: Date;
  principal_id: string | null;
  method: string;
  endpoint: string;
  status: number;
  response_time_ms: number;
  ip_address: string;
  user_agent: string | null;
  request_size: number;
  response_size: number;
  cache_hit: number;
  region: string;
  error_code: string | null;
  /** Endpoint-specific audit fields (query_hash, sources_analyzed, ...), as JSON text. */
  extra: string | null;
}

export interface ServiceSettingsTable {
  name: string;
  value: string;
  updated_at: Date;
}
