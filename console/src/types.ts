/** The shapes of the API answers the console reads (schemas/*.response.json), as far as it reads them. */

export interface Session {
  kind: 'key' | 'member';
  via: 'api_key' | 'sso' | 'invitation';
  account_id: string;
  member: { id: string; team_id: string; email: string; role: 'admin' | 'developer' | 'researcher' } | null;
  key_id: string | null;
  permissions: string[];
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

export interface KeyRecord {
  id: string;
  key?: string;
  new_key?: string;
  old_key_expires_at?: string;
  name: string;
  type: 'standard' | 'scoped' | 'service_account';
  mode: 'live' | 'test';
  account_id: string;
  permissions: string[];
  rate_limit: number;
  daily_limit?: number | null;
  expires_at?: string | null;
  created_at: string;
  last_used_at?: string | null;
  status: 'active' | 'expired' | 'revoked';
  key_hint: string;
  revoke_at?: string | null;
  revoked_at?: string | null;
  member_id?: string | null;
}

export interface UsageBucket {
  date: string;
  requests: number;
  success_rate: number;
  avg_response_time: number;
  cache_hit_rate: number;
}

export interface Usage {
  current_period: { requests_used: number | null; requests_limit: number | null; usage_percentage: number | null; reset_date: string; days_until_reset: number };
  period: { start: string; end: string; breakdown: 'hour' | 'day' | 'week' };
  usage_breakdown: UsageBucket[];
  endpoint_usage: Record<string, { requests: number; percentage: number; avg_response_time: number; success_rate: number }>;
  performance_metrics: { avg_response_time: number; p95_response_time: number; p99_response_time: number; success_rate: number; error_rate: number; cache_hit_rate: number };
}

export interface AuditEntry {
  request_id: string;
  timestamp: string;
  endpoint: string;
  method: string;
  status: number;
  response_time: number;
  ip_address: string;
  user_agent: string;
  request_size: number;
  response_size: number;
  cache_hit: boolean;
  region: string;
  key_id: string | null;
  error_code?: string;
  [field: string]: unknown;
}

export interface AuditPage {
  entries: AuditEntry[];
  pagination: { total: number; limit: number; offset: number; has_more: boolean };
}

export interface Alert {
  alert_id: string;
  name: string;
  metric: string;
  comparator: string;
  threshold: number;
  severity: string;
  channels: string[];
  enabled: boolean;
  state: string;
}

export interface Delivery {
  delivery_id: string;
  event: string;
  channel: string;
  destination: string;
  status: string;
  attempts: number;
  last_error: string | null;
  last_status_code: number | null;
  created_at: string;
  delivered_at: string | null;
}

export interface Team {
  id: string;
  name: string;
  permissions: string[];
  member_count?: number;
}

export interface Member {
  id: string;
  email: string;
  role: 'admin' | 'developer' | 'researcher';
  created_at: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: string;
  status: string;
  expires_at: string;
}

export interface List<T> {
  items: T[];
  total?: number;
  limit: number;
  offset: number;
}

export interface SsoConfig {
  account_id: string;
  provider: string;
  entity_id: string;
  sso_url: string;
  certificate_fingerprint: string;
  certificate_expires_at: string;
  service_provider: { entity_id: string; acs_url: string; metadata_url: string; login_url: string };
}
