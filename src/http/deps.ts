import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Logger } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { HealthMonitor } from '../monitor/health.js';
import type { AuditCapture } from '../monitor/audit-capture.js';
import type { AuditService } from '../monitor/audit-service.js';
import type { ErrorAnalyticsService } from '../monitor/error-analytics.js';
import type { DashboardService } from '../monitor/dashboard-service.js';
import type { LiveRecorder } from '../monitor/live-recorder.js';
import type { UsageReportService } from '../usage/usage-report.js';
import type { LiveMetricsService } from '../monitor/live-metrics.js';
import type { AlertService } from '../alerts/alert-service.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { KeyService } from '../auth/key-service.js';
import type { SessionService } from '../auth/session-service.js';
import type { TeamService } from '../teams/team-service.js';
import type { SsoService } from '../sso/sso-service.js';
import type { Clock } from '../clock.js';
import type { UsageMeter } from '../usage/usage-meter.js';
import type { UsageRecorder } from '../usage/usage-recorder.js';
import type { KeyUsageService } from '../usage/key-usage-service.js';
import type { CacheService } from '../cache/cache-service.js';
import type { CrawlService } from '../crawl/crawl-service.js';
import type { SearchService } from '../search/search-service.js';
import type { IndexService } from '../index/index-service.js';
import type { ExtractService } from '../extract/extract-service.js';
import type { ValidateService } from '../validate/validate-service.js';
import type { SummarizeService } from '../summarize/summarize-service.js';
import type { McpEndpoint } from '../mcp/mcp-endpoint.js';
import type { TavilyService } from '../compat/tavily-service.js';
import type { ExaService } from '../compat/exa-service.js';
import type { FirecrawlService } from '../compat/firecrawl-service.js';

/**
 * What route handlers work with: a service per feature, and what the probes and the OpenAPI
 * document tell about this process. Storage, Redis and the queues stay behind the services.
 */
export interface Services {
  search: SearchService;
  extract: ExtractService;
  validate: ValidateService;
  summarize: SummarizeService;
  /** POST /mcp: the MCP server, whose tool calls are API requests dispatched through this process's application. */
  mcp: McpEndpoint;
  index: IndexService;
  crawls: CrawlService;
  cache: CacheService;
  keys: KeyService;
  keyUsage: KeyUsageService;
  /** /v1/teams: teams, members, invitations. */
  teams: TeamService;
  /** /v1/sso: each account's SAML identity provider, and the sign-ins through it. */
  sso: SsoService;
  /** /v1/session: console sessions. */
  sessions: SessionService;
  /** PUBLIC_URL, or undefined: links and SSO addresses are built from each request's origin. */
  publicUrl: string | undefined;
  health: HealthMonitor;
  usage: UsageReportService;
  audit: AuditService;
  errors: ErrorAnalyticsService;
  /** /v1/dashboards. */
  dashboards: DashboardService;
  /** GET /v1/metrics/live. */
  live: LiveMetricsService;
  /** /v1/alerts: definitions, history, deliveries, test notifications. */
  alerts: AlertService;
  /** /compat/tavily: Tavily's search and extract on the service's own. */
  tavily: TavilyService;
  /** /compat/exa: Exa's search and contents on the service's own. */
  exa: ExaService;
  /** /compat/firecrawl: Firecrawl's v2 API on the service's extraction, crawls and search. */
  firecrawl: FirecrawlService;
  /** The Prometheus registry /metrics exposes. */
  metrics: Metrics;
  version: string;
  /** False once shutdown has begun, so /readyz tells load balancers to stop sending traffic. */
  accepting: () => boolean;
}

/** Everything the HTTP edge needs, built once per process in src/service.ts: the middleware's own needs, and the services. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  /** Where the rate limit keeps its per-key windows and the address limit its failed authentications, shared by every API process. */
  redis: Redis;
  /** Undefined when AUDIT_CAPTURE=off. */
  auditCapture: AuditCapture | undefined;
  /** Counts every answered request for the live figures this process shares. */
  live: LiveRecorder;
  authenticator: Authenticator;
  /** Console sessions, the credential of a request that sends no key. */
  sessions: SessionService;
  usageMeter: UsageMeter;
  usageRecorder: UsageRecorder;
  clock: Clock;
  services: Services;
}
