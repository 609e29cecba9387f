import type { ColumnType, Generated } from 'kysely';

/** The typed shape of every table. Only *.repository.ts modules use it to speak SQL. */
export interface Database {
  extractions: ExtractionsTable;
  request_log: RequestLogTable;
  audit_hourly: AuditHourlyTable;
  audit_errors_hourly: AuditErrorsHourlyTable;
  audit_ips_hourly: AuditIpsHourlyTable;
  audit_ips_daily: AuditIpsDailyTable;
  audit_totals_hourly: AuditTotalsHourlyTable;
  audit_totals_daily: AuditTotalsDailyTable;
  audit_error_facets_daily: AuditErrorFacetsDailyTable;
  audit_error_hours_daily: AuditErrorHoursDailyTable;
  audit_ips_deployment_daily: AuditIpsDeploymentDailyTable;
  service_settings: ServiceSettingsTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  api_key_secrets: ApiKeySecretsTable;
  usage_monthly: UsageMonthlyTable;
  key_usage_daily: KeyUsageDailyTable;
  index_documents: IndexDocumentsTable;
  index_passages: IndexPassagesTable;
  index_terms: IndexTermsTable;
  index_segments: IndexSegmentsTable;
  index_segment_postings: IndexSegmentPostingsTable;
  index_stats: IndexStatsTable;
  crawls: CrawlsTable;
  crawl_pages: CrawlPagesTable;
  dashboards: DashboardsTable;
  notification_deliveries: NotificationDeliveriesTable;
  alerts: AlertsTable;
  alert_state: AlertStateTable;
  alert_events: AlertEventsTable;
  alert_evaluations: AlertEvaluationsTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  team_invitations: TeamInvitationsTable;
  sso_configs: SsoConfigsTable;
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
  canonical_url: string | null;
  site_name: string | null;
  description: string | null;
  mode: string;
  clean_html: number;
  /** The main content as the block model (src/html/blocks.ts), JSON. */
  blocks_json: string | null;
  quality_score: number | null;
  /** A PDF's pages and last modification; null for web pages. */
  page_count: number | null;
  modified_at: Date | null;
  /** Hash of the selectors that shaped the extraction; null for the page's own main content. */
  scope: string | null;
  /** The page's links outside the content ({url, text, location}[]), JSON; null when not read. */
  other_links_json: string | null;
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
  account_id: string | null;
  mode: string | null;
  /** Endpoint-specific audit fields (query_hash, sources_analyzed, ...), as JSON text. */
  extra: string | null;
  /** Idempotency key of the captured entry: a batch written twice inserts nothing twice. */
  entry_id: string | null;
  /** status >= 400, computed by MySQL (indexed for the status filter). */
  failed: ColumnType<number, never, never>;
}

/** Hourly totals per account, mode, key and endpoint; `lat_0`..`lat_13` count latencies per bucket. */
export interface AuditHourlyTable extends Record<`lat_${number}`, number> {
  account_id: string;
  mode: string;
  hour: Date;
  key_id: string;
  endpoint: string;
  requests: number;
  errors: number;
  cache_hits: number;
  request_bytes: number;
  response_bytes: number;
  latency_ms_sum: number;
}

/** Errors per hour, per account and mode and for the whole deployment (account `*`, since 20261125T1300). */
export interface AuditErrorsHourlyTable {
  account_id: string;
  mode: string;
  hour: Date;
  endpoint: string;
  error_code: string;
  parameter: string;
  agent: string;
  errors: number;
  latency_ms_sum: number;
}

export interface AuditIpsHourlyTable {
  account_id: string;
  mode: string;
  hour: Date;
  endpoint: string;
  failed: number;
  ip: string;
}

export interface AuditIpsDailyTable {
  account_id: string;
  mode: string;
  day: Date;
  endpoint: string;
  failed: number;
  ip: string;
}

/**
 * Totals of an account and mode (or of the whole deployment: account `*`) per hour or day: rows
 * of one endpoint (key `*`), of one key (endpoint `*`) and of everything (both `*`).
 * `lat_0`..`lat_13` count latencies per bucket.
 */
interface AuditTotalsRow extends Record<`lat_${number}`, number> {
  account_id: string;
  mode: string;
  key_id: string;
  endpoint: string;
  requests: number;
  errors: number;
  cache_hits: number;
  request_bytes: number;
  response_bytes: number;
  latency_ms_sum: number;
  /** Latency of the failed requests; null on key rows carried over from the hourly rollups. */
  error_latency_ms_sum: number | null;
}

export interface AuditTotalsHourlyTable extends AuditTotalsRow {
  hour: Date;
}

export interface AuditTotalsDailyTable extends AuditTotalsRow {
  day: Date;
}

/**
 * Errors of a code per day by one facet: `facet` is endpoint, parameter or agent (client
 * product) and `value` its value; for accounts and the whole deployment (account `*`).
 */
export interface AuditErrorFacetsDailyTable {
  account_id: string;
  mode: string;
  day: Date;
  error_code: string;
  facet: 'endpoint' | 'parameter' | 'agent';
  value: string;
  errors: number;
  latency_ms_sum: number;
}

/** Errors of a code per hour of the day (`h_0`..`h_23`, UTC), per day. */
export interface AuditErrorHoursDailyTable extends Record<`h_${number}`, number> {
  account_id: string;
  mode: string;
  day: Date;
  error_code: string;
}

/** The deployment's client addresses per day, with the first and last time each was seen that day. */
export interface AuditIpsDeploymentDailyTable {
  mode: string;
  day: Date;
  endpoint: string;
  failed: number;
  ip: string;
  first_seen: Date;
  last_seen: Date;
}

export interface ServiceSettingsTable {
  name: string;
  value: string;
  updated_at: Date;
}

export interface AccountsTable {
  id: string;
  name: string;
  plan: string;
  created_at: Date;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  type: string;
  mode: string;
  /** JSON array of permission names. */
  permissions: string;
  rate_limit: number | null;
  daily_limit: number | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  description: string | null;
  environment: string | null;
  /** JSON array of CIDR ranges, or null for any address. */
  ip_allowlist: string | null;
  key_hint: string;
  created_at: Date;
  last_used_at: Date | null;
  /** The team member the key belongs to; null for an account key. */
  member_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ApiKeySecretsTable {
  secret_hash: string;
  key_id: string;
  created_at: Date;
  expires_at: Date | null;
}

export interface UsageMonthlyTable {
  account_id: string;
  mode: string;
  period: string;
  requests: ColumnType<number, number, number>;
}

export interface KeyUsageDailyTable {
  key_id: string;
  day: ColumnType<Date, string, string>;
  requests: ColumnType<number, number, number>;
}

/** The search index (src/index/): one row per indexed URL and mode. */
export interface IndexDocumentsTable {
  id: Generated<number>;
  mode: string;
  url: string;
  url_hash: string;
  domain: string;
  /** The host's labels reversed with a trailing dot (com.example.www.), so subdomains share a prefix. */
  domain_reversed: string;
  title: string | null;
  author: string | null;
  language: string | null;
  country_hint: string | null;
  published_at: Date | null;
  fetched_at: Date;
  authority: number | null;
  content_hash: string;
  /** The simhash of the text as four 16-bit bands. */
  sim0: number;
  sim1: number;
  sim2: number;
  sim3: number;
  duplicate_of: number | null;
  passage_count: number;
  /** Analysed terms of title and text (the sum of its passages' lengths): BM25's document length. */
  length: ColumnType<number, number | undefined, number>;
}

export interface IndexPassagesTable {
  id: Generated<number>;
  document_id: number;
  position: number;
  /** Index terms in the passage (BM25's document length). */
  length: number;
  text: string;
  /** The passage's distinct term ids (postings-codec id set): what deleting it takes out of df. */
  terms: Buffer;
}

export interface IndexTermsTable {
  id: Generated<number>;
  mode: string;
  term: string;
  /** Passages containing the term. */
  df: number;
}

/** One immutable set of postings (migration 20261122T0100): written by one batch or by a merge. */
export interface IndexSegmentsTable {
  id: Generated<number>;
  mode: string;
  level: number;
  state: 'building' | 'active' | 'retired';
  postings: number;
  dead_postings: number;
  first_passage: number;
  last_passage: number;
  created_at: Date;
}

/** A term's postings in one segment, in chunks (src/index/postings-codec.ts). */
export interface IndexSegmentPostingsTable {
  segment_id: number;
  term_id: number;
  chunk: number;
  data: Buffer;
}

export interface IndexStatsTable {
  mode: string;
  passages: number;
  total_length: number;
  documents: ColumnType<number, number | undefined, number>;
}

/** Crawls (src/crawl/): one row per POST /v1/crawl, with the lease of the worker driving it. */
export interface CrawlsTable {
  id: string;
  account_id: string | null;
  principal_id: string | null;
  mode: string;
  request_id: string;
  state: string;
  /** The validated request, JSON. */
  options: string;
  max_pages: number;
  pages_admitted: ColumnType<number, number | undefined, number>;
  robots_skipped: ColumnType<number, number | undefined, number>;
  limit_reached: ColumnType<number, number | undefined, number>;
  seeded: ColumnType<number, number | undefined, number>;
  lease_epoch: ColumnType<number, number | undefined, number>;
  /** Epochs that ended with a graceful hand-over (a worker stopping), which do not count as restarts. */
  handbacks: ColumnType<number, number | undefined, number>;
  lease_owner: string | null;
  lease_until: Date | null;
  stopped_reason: string | null;
  failure_code: string | null;
  failure_message: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  updated_at: Date;
}

/** A crawl's frontier and its outcome per URL. */
export interface CrawlPagesTable {
  id: Generated<number>;
  crawl_id: string;
  url: string;
  url_hash: string;
  host: string;
  depth: number;
  state: string;
  attempts: ColumnType<number, number | undefined, number>;
  lease_owner: string | null;
  final_url: string | null;
  http_status: number | null;
  index_status: string | null;
  error_code: string | null;
  reason: string | null;
  finished_at: Date | null;
}

/** Dashboards (src/monitor/dashboard-service.ts): owned by a key's account and mode, or by the master key. */
export interface DashboardsTable {
  id: string;
  /** The owner's account id, or 'master'. */
  owner: string;
  /** The owner's mode (the master key's is live). */
  owner_mode: string;
  /** Whose figures it shows: an account, or null for the whole deployment. */
  account_id: string | null;
  /** Their mode; null for both (a deployment-wide master dashboard). */
  mode: string | null;
  name: string;
  /** Metrics and alerts as validated, JSON. */
  definition: string;
  created_at: Date;
  updated_at: Date;
}

/** Alert notifications (src/notify/): one row per event and channel; the delivery log and dead letters. */
export interface NotificationDeliveriesTable {
  id: string;
  alert_id: string;
  account_id: string | null;
  mode: string;
  event_id: string;
  event: string;
  channel: string;
  destination: string;
  /** The ChannelTarget (secret and template included), JSON. */
  target: string;
  /** The Notification, JSON. */
  notification: string;
  /** queued → (retrying →) delivered | dead */
  status: string;
  attempts: ColumnType<number, number | undefined, number>;
  last_error: string | null;
  last_status_code: number | null;
  enqueued_at: Date | null;
  created_at: Date;
  updated_at: Date;
  delivered_at: Date | null;
}

/** An alert definition: whose it is, what it watches, where it notifies. */
export interface AlertsTable {
  id: string;
  /** null: made with the master key. */
  owner_account_id: string | null;
  owner_mode: string;
  name: string;
  severity: string;
  /** As written; parsed again when evaluated. */
  condition: string;
  duration_ms: number;
  /** Whose figures the condition reads; null account: the whole deployment. */
  scope_account_id: string | null;
  scope_mode: string | null;
  scope_endpoint: string | null;
  /** The channels' destinations (JSON), a webhook's signing secret included. */
  channels: string;
  enabled: number;
  created_at: Date;
  updated_at: Date;
}

/** Where an alert stands after its last evaluation. */
export interface AlertStateTable {
  alert_id: string;
  state: string;
  since: Date;
  value: number | null;
  evaluated_at: Date;
}

/** Each state change of an alert, in order. */
export interface AlertEventsTable {
  id: Generated<number>;
  event_id: string;
  alert_id: string;
  from_state: string;
  to_state: string;
  value: number | null;
  message: string;
  occurred_at: Date;
}

/** One row: the last evaluation interval that took effect, the fence of exactly-once evaluation. */
export interface AlertEvaluationsTable {
  id: number;
  last_tick: number;
  evaluated_at: Date | null;
  alerts: number;
  took_ms: number;
}

/** An account's team: its members' keys hold at most its permissions. */
export interface TeamsTable {
  id: string;
  account_id: string;
  name: string;
  /** JSON array of scopes. */
  permissions: string;
  created_at: Date;
  updated_at: Date;
}

/** A person in a team, known by e-mail address (lower-cased; one membership per address and account). */
export interface TeamMembersTable {
  id: string;
  team_id: string;
  account_id: string;
  email: string;
  /** admin, developer or researcher. */
  role: string;
  created_at: Date;
  updated_at: Date;
}

/** An invitation to join a team, by e-mail, with a single-use link whose token only as SHA-256 is kept. */
export interface TeamInvitationsTable {
  id: string;
  team_id: string;
  account_id: string;
  email: string;
  role: string;
  token_hash: string;
  invited_by: string;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  member_id: string | null;
}

/** An account's SAML identity provider. */
export interface SsoConfigsTable {
  account_id: string;
  provider: string;
  entity_id: string;
  sso_url: string;
  /** PEM. */
  certificate: string;
  created_at: Date;
  updated_at: Date;
}
