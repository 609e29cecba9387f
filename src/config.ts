import fs from 'node:fs';
import os from 'node:os';
import ipaddr from 'ipaddr.js';
import { DEFAULT_PLANS, parsePlans, Plans, type Plan } from './auth/plans.js';
import { DEFAULT_PER_HOST_CONCURRENCY } from './fetch/host-limit.js';
import { DEFAULT_DOM_LIMITS, type DomLimits } from './html/dom.js';
import { BUILT_IN_SUBJECTS, parseSubjects, type Subjects } from './validate/subjects.js';

/**
 * Configuration is read from the environment exactly once, validated, and frozen. Every other
 * module receives the Config object; none reads process.env. A wrong value stops start-up with
 * a message that names the variable, so an operator never chases a silent default.
 */
export interface Config {
  readonly host: string;
  readonly port: number;
  readonly tls: { readonly certFile: string; readonly keyFile: string } | undefined;
  readonly requireHttps: boolean;
  readonly trustedProxies: readonly string[];
  readonly databaseUrl: string;
  readonly databasePoolSize: number;
  readonly redisUrl: string;
  readonly queuePrefix: string;
  readonly masterApiKey: string | undefined;
  readonly poolSize: number;
  readonly poolTaskTimeoutMs: number;
  /** Heap of each pool thread (POOL_THREAD_HEAP_MB): a task that fills it ends its thread and fails as its input's fault. */
  readonly poolThreadHeapMb: number;
  /** How much DOM a page may make before it is refused as too complex (HTML_MAX_NODES, HTML_MAX_DEPTH). */
  readonly html: DomLimits;
  /**
   * PDFs: more pages than maxPages are refused unread (PDF_MAX_PAGES); reading one is stopped
   * after timeoutMs (PDF_TIMEOUT_MS, its pool task's limit instead of POOL_TASK_TIMEOUT_MS).
   */
  readonly pdf: { readonly maxPages: number; readonly timeoutMs: number };
  readonly workerConcurrency: number;
  readonly workerMetricsPort: number;
  readonly workerHeartbeatMs: number;
  /** A job's lock: a worker that dies holding it loses it this long after its last renewal (JOB_LOCK_MS). */
  readonly jobLockMs: number;
  /** How often workers hand the jobs of dead workers (locks lapsed) back to the queue (JOB_STALLED_CHECK_MS). */
  readonly jobStalledCheckMs: number;
  readonly maxBodyBytes: number;
  /** Bytes the result cache may hold per namespace (account and mode); past it, the entries nearest expiry go first. */
  readonly cacheNamespaceMaxBytes: number;
  /** Bytes of result-cache entries each API process keeps copies of (0: none, every read goes to Redis). */
  readonly cacheNearMaxBytes: number;
  /** Bytes of the search index's postings lists each worker process keeps for the next queries (SEARCH_POSTINGS_CACHE_MB; 0: none). */
  readonly indexPostingsCacheBytes: number;
  /** Bytes of analysed passage texts each pool thread keeps for the next searches' ranking (SEARCH_ANALYSIS_CACHE_MB; src/text/analysed-texts.ts). */
  readonly analysisCacheBytes: number;
  /** The master key's per-minute limit (keys get theirs from their plan). */
  readonly rateLimitPerMinute: number;
  readonly plans: Plans;
  /** Plan of the default account, which owns keys created without an account. */
  readonly defaultPlan: string;
  /** Where 403/429 errors send a client to change plan; default: this service's /v1/plans. */
  readonly upgradeUrl: string | undefined;
  /** How long a process trusts a cached key lookup when no invalidation arrives. */
  readonly keyCacheTtlMs: number;
  /**
   * The service's address as people reach it (PUBLIC_URL, no trailing slash): the base of invitation
   * links and of the SAML service provider's entity ID and URLs. Undefined: the origin each request
   * was addressed to.
   */
  readonly publicUrl: string | undefined;
  /** How long a console session lasts from sign-in (SESSION_TTL_MINUTES). */
  readonly sessionTtlMs: number;
  /** How long an invitation link can be used (INVITATION_TTL_HOURS). */
  readonly invitationTtlMs: number;
  /** Failed authentications allowed per client address per minute before 429. */
  readonly authFailuresPerMinute: number;
  readonly fetch: {
    readonly allowedCidrs: readonly string[];
    readonly userAgent: string;
    readonly maxBytes: number;
    readonly maxRedirects: number;
    readonly concurrency: number;
    /** Requests in flight to one host at once, per process. */
    readonly perHostConcurrency: number;
    /** Every fetch obeys robots.txt (a request can also ask for it when this is off). */
    readonly respectRobots: boolean;
  };
  /** Rendering pages that need JavaScript in a headless Chromium (src/render, docs/extraction.md). */
  readonly render: RenderConfig;
  /** Optional SearXNG instance whose results search merges with the index's (undefined: none). */
  readonly searxng: { readonly url: string; readonly timeoutMs: number } | undefined;
  /** Optional OpenAI-compatible chat-completions endpoint that writes abstractive summaries (undefined: none). */
  readonly llm: LlmConfig | undefined;
  readonly search: SearchConfig;
  readonly validate: {
    /** Subjects of context.domain with their trusted publishers (built-in, and VALIDATE_SUBJECTS_FILE's). */
    readonly subjects: Subjects;
    /** The chat-completions endpoint validation asks for the stance of key passages (VALIDATION_JUDGE=llm); undefined: off. */
    readonly judge: JudgeConfig | undefined;
  };
  /** Crawls of one account and mode that may be queued or running at once; POST /v1/crawl refuses more. */
  readonly crawlMaxUnfinished: number;
  /** Circuit breaker of each upstream service (SearXNG, the summarizer). */
  readonly upstreamBreaker: { readonly failures: number; readonly windowMs: number; readonly cooldownMs: number };
  readonly shutdownTimeoutMs: number;
  /** What the tenant metrics are broken down by: key (and account), account only, or off (none exported). */
  readonly tenantMetrics: 'key' | 'account' | 'off';
  readonly logLevel: string;
  /** A log line per answered request (ACCESS_LOG=on); the audit log keeps every request either way. */
  readonly accessLog: boolean;
  /** The region this process reports in audit entries, health and live metrics (REGION). */
  readonly region: string;
  /** How often every alert is evaluated, once across the cluster (ALERT_EVAL_INTERVAL_MS). */
  readonly alertIntervalMs: number;
  readonly audit: {
    /**
     * Whether requests are captured at all (AUDIT_CAPTURE=off: no audit log, and usage and error
     * analytics see no traffic; for measuring what capture costs, or a deployment that must keep none).
     */
    readonly capture: boolean;
    /** Days raw audit rows are kept (AUDIT_RETENTION_DAYS). */
    readonly retentionDays: number;
    /** Days hourly rollups are kept: usage and error analytics reach this far back (AUDIT_ROLLUP_RETENTION_DAYS). */
    readonly rollupRetentionDays: number;
    /** Entries that may wait in Redis for MySQL before new ones are dropped (AUDIT_BACKLOG_MAX). */
    readonly backlogMax: number;
    /** How long entries a writer took stay unwritten before another process takes them over (AUDIT_CLAIM_IDLE_MS). */
    readonly claimIdleMs: number;
    /**
     * How long a response waits for Redis to take its entry (AUDIT_HANDOFF_TIMEOUT_MS); past it the
     * entry waits in the process's memory and the response leaves, so a kill -9 then can lose it.
     */
    readonly handoffTimeoutMs: number;
  };
  /** Delivery of alert notifications (src/notify, docs/notifications.md). */
  readonly notify: NotifyConfig;
  /** The SMTP server email notifications go through (undefined: SMTP_HOST unset, no email channel). */
  readonly smtp: SmtpConfig | undefined;
}

export type RenderMode = 'never' | 'auto' | 'always';

/** What the browser loads of a page's subresources: these kinds are refused (RENDER_BLOCK_RESOURCES). */
export const RENDER_RESOURCE_KINDS = ['image', 'font', 'media', 'stylesheet'] as const;
export type RenderResourceKind = (typeof RENDER_RESOURCE_KINDS)[number];

export interface RenderConfig {
  /** options.render when a request does not say (RENDER_DEFAULT). */
  readonly defaultMode: RenderMode;
  /** The Chromium started for rendering (CHROMIUM_PATH); the service runs without it, and renders nothing. */
  readonly chromiumPath: string;
  /** Browser contexts open at once per worker process, one per rendering job (RENDER_CONTEXTS). */
  readonly contexts: number;
  /** V8 heap of each page's renderer process (RENDER_PAGE_HEAP_MB): a page that fills it crashes its renderer. */
  readonly pageHeapMb: number;
  /** Memory of the whole browser, all its processes (RENDER_BROWSER_MAX_MB; 0: unwatched): past it the browser is restarted. */
  readonly browserMaxMb: number;
  /** Kinds of subresources never fetched for a rendered page (RENDER_BLOCK_RESOURCES). */
  readonly blockedResources: readonly RenderResourceKind[];
}

export interface NotifyConfig {
  /** Tries of one delivery, the first included, before it is dead (NOTIFY_MAX_ATTEMPTS). */
  readonly maxAttempts: number;
  /** Base of the exponential backoff: retry n waits about base × 2^(n-1), less up to half of it at random (NOTIFY_RETRY_BASE_MS). */
  readonly retryBaseMs: number;
  /** Longest one webhook, Slack or SMTP attempt may take (NOTIFY_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /** Deliveries one worker process sends at once (NOTIFY_CONCURRENCY). */
  readonly concurrency: number;
  /** Lock of a delivery in progress: a worker that dies holding it loses it this long after, and another worker sends again (NOTIFY_LOCK_MS). */
  readonly lockMs: number;
}

export interface SmtpConfig {
  readonly host: string;
  readonly port: number;
  /** TLS from the first byte (SMTPS, usually port 465); otherwise plain SMTP upgraded by STARTTLS. */
  readonly secure: boolean;
  /** Without `secure`: required (refuse a server without STARTTLS), opportunistic (use it when offered) or off (never). */
  readonly starttls: 'required' | 'opportunistic' | 'off';
  readonly auth: { readonly user: string; readonly pass: string } | undefined;
  readonly from: string;
  readonly tls: {
    /** PEM of the CAs trusted for the server's certificate instead of Node's bundle (SMTP_TLS_CA, a file). */
    readonly ca: string | undefined;
    /** false accepts any certificate (SMTP_TLS_REJECT_UNAUTHORIZED=false): the connection is encrypted but not authenticated. */
    readonly rejectUnauthorized: boolean;
  };
}

export interface LlmConfig {
  /** Up to and including the API version, e.g. https://api.openai.com/v1; /chat/completions is appended. */
  readonly baseUrl: string;
  readonly model: string;
  /** Sent as a bearer token when set. */
  readonly apiKey: string | undefined;
  readonly timeoutMs: number;
  readonly maxTokens: number;
}

/** The model judge of validation: an LLM endpoint's settings (JUDGE_*, else LLM_*) and how many passages it gets. */
export interface JudgeConfig extends LlmConfig {
  /** Key passages of one claim sent to the judge at most (JUDGE_MAX_PASSAGES). */
  readonly maxPassages: number;
}

export interface SearchConfig {
  /** Lifetime of a search answer in the result cache. */
  readonly cacheTtlSeconds: number;
  /** Results of one domain listed before every other domain has had its turn (0: no cap). */
  readonly maxPerDomain: number;
  /** Pages deep search reads live. */
  readonly deepPages: number;
  /** Longest wait for one page of deep search (the search's own deadline may end it sooner). */
  readonly deepPageTimeoutMs: number;
  /** Configured trust in domains (each covering its subdomains), 0..1, for ranking. */
  readonly authority: readonly { readonly domain: string; readonly weight: number }[];
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string, fallback: string): string {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? fallback : value;
}

function optionalText(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optionalText(env, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = optionalText(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function url(env: Env, name: string, fallback: string, protocols: readonly string[]): string {
  const value = text(env, name, fallback);
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(name, `must be a URL, got "${value}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return value;
}

function cidrList(env: Env, name: string): readonly string[] {
  const raw = optionalText(env, name);
  if (raw === undefined) return [];
  const items = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const item of items) {
    try {
      if (item.includes('/')) ipaddr.parseCIDR(item);
      // ipaddr.parse also reads shorthand such as "10" (0.0.0.10); only full addresses are meant.
      else if (!ipaddr.IPv4.isValidFourPartDecimal(item) && !ipaddr.IPv6.isValid(item)) throw new Error(item);
    } catch {
      throw new ConfigError(name, `must be a comma-separated list of IP addresses or CIDR ranges, got "${item}"`);
    }
  }
  return items;
}

/** A comma-separated subset of RENDER_RESOURCE_KINDS, or `none`. */
function resourceKinds(env: Env, name: string, fallback: readonly RenderResourceKind[]): readonly RenderResourceKind[] {
  const raw = optionalText(env, name);
  if (raw === undefined) return fallback;
  const items = raw.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s && s !== 'none');
  for (const item of items) {
    if (!(RENDER_RESOURCE_KINDS as readonly string[]).includes(item)) {
      throw new ConfigError(name, `must list kinds among ${RENDER_RESOURCE_KINDS.join(', ')} (or none), got "${item}"`);
    }
  }
  return [...new Set(items)] as RenderResourceKind[];
}

function enumValue<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const value = text(env, name, fallback);
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${value}"`);
  }
  return value as T;
}

export function loadConfig(env: Env = process.env): Config {
  const certFile = optionalText(env, 'TLS_CERT_FILE');
  const keyFile = optionalText(env, 'TLS_KEY_FILE');
  if (Boolean(certFile) !== Boolean(keyFile)) {
    throw new ConfigError(certFile ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE', 'must be set together with its pair (TLS_CERT_FILE and TLS_KEY_FILE)');
  }
  const masterApiKey = optionalText(env, 'MASTER_API_KEY');
  if (masterApiKey !== undefined && masterApiKey.length < 24) {
    throw new ConfigError('MASTER_API_KEY', 'must be at least 24 characters long');
  }
  const cores = Math.max(1, os.availableParallelism());
  const poolThreadHeapMb = integer(env, 'POOL_THREAD_HEAP_MB', 1024, 32, 65_536);
  const plans = new Plans(plansFrom(env));
  const defaultPlan = text(env, 'DEFAULT_PLAN', plans.list[plans.list.length - 1]!.name);
  if (!plans.has(defaultPlan)) {
    throw new ConfigError('DEFAULT_PLAN', `must name a plan (${plans.list.map((p) => p.name).join(', ')}), got "${defaultPlan}"`);
  }

  const config: Config = {
    host: text(env, 'HOST', '127.0.0.1'),
    port: integer(env, 'PORT', 8080, 0, 65535),
    tls: certFile && keyFile ? { certFile, keyFile } : undefined,
    requireHttps: boolean(env, 'REQUIRE_HTTPS', false),
    trustedProxies: cidrList(env, 'TRUSTED_PROXIES'),
    databaseUrl: url(env, 'DATABASE_URL', 'mysql://root@127.0.0.1:3306/test', ['mysql:', 'mariadb:']),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 500),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    queuePrefix: text(env, 'QUEUE_PREFIX', 'sev'),
    masterApiKey,
    poolSize: integer(env, 'POOL_SIZE', cores, 1, 256),
    poolTaskTimeoutMs: integer(env, 'POOL_TASK_TIMEOUT_MS', 10_000, 100, 600_000),
    poolThreadHeapMb,
    html: {
      maxNodes: integer(env, 'HTML_MAX_NODES', DEFAULT_DOM_LIMITS.maxNodes, 1000, 50_000_000),
      maxDepth: integer(env, 'HTML_MAX_DEPTH', DEFAULT_DOM_LIMITS.maxDepth, 10, 10_000_000),
    },
    pdf: {
      maxPages: integer(env, 'PDF_MAX_PAGES', 500, 1, 100_000),
      timeoutMs: integer(env, 'PDF_TIMEOUT_MS', 20_000, 100, 600_000),
    },
    // As many jobs as the process may have fetches in flight (FETCH_CONCURRENCY's default): jobs
    // mostly wait on the network, and the pool's queue bounds the CPU work they hand it.
    workerConcurrency: integer(env, 'WORKER_CONCURRENCY', 16, 1, 1000),
    workerMetricsPort: integer(env, 'WORKER_METRICS_PORT', 9464, 0, 65535),
    workerHeartbeatMs: integer(env, 'WORKER_HEARTBEAT_MS', 5000, 100, 60_000),
    jobLockMs: integer(env, 'JOB_LOCK_MS', 5000, 1000, 600_000),
    jobStalledCheckMs: integer(env, 'JOB_STALLED_CHECK_MS', 1500, 500, 600_000),
    maxBodyBytes: integer(env, 'MAX_BODY_MB', 10, 1, 100) * 1024 * 1024,
    cacheNamespaceMaxBytes: integer(env, 'CACHE_NAMESPACE_MAX_MB', 64, 2, 1_048_576) * 1024 * 1024,
    cacheNearMaxBytes: integer(env, 'CACHE_NEAR_MAX_MB', 64, 0, 65_536) * 1024 * 1024,
    indexPostingsCacheBytes: integer(env, 'SEARCH_POSTINGS_CACHE_MB', 128, 0, 65_536) * 1024 * 1024,
    // At least 1 MB: a search's snippets and summary read its best passages' sentences again. It
    // lives in the pool thread's heap: at most half of it, so tasks keep room.
    analysisCacheBytes: integer(env, 'SEARCH_ANALYSIS_CACHE_MB', Math.min(32, Math.floor(poolThreadHeapMb / 4)), 1, Math.floor(poolThreadHeapMb / 2)) * 1024 * 1024,
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
    plans,
    defaultPlan,
    upgradeUrl: optionalText(env, 'UPGRADE_URL') === undefined ? undefined : url(env, 'UPGRADE_URL', '', ['http:', 'https:']),
    keyCacheTtlMs: integer(env, 'KEY_CACHE_TTL_S', 60, 0, 3600) * 1000,
    publicUrl: optionalText(env, 'PUBLIC_URL') === undefined ? undefined : url(env, 'PUBLIC_URL', '', ['http:', 'https:']).replace(/\/+$/, ''),
    sessionTtlMs: integer(env, 'SESSION_TTL_MINUTES', 480, 5, 43_200) * 60_000,
    invitationTtlMs: integer(env, 'INVITATION_TTL_HOURS', 72, 1, 720) * 3_600_000,
    authFailuresPerMinute: integer(env, 'AUTH_FAILURES_PER_MINUTE', 60, 1, 1_000_000),
    fetch: {
      allowedCidrs: cidrList(env, 'FETCH_ALLOW_PRIVATE'),
      userAgent: text(env, 'FETCH_USER_AGENT', 'sev-api/0.1 (+https://github.com/sev-api)'),
      maxBytes: integer(env, 'FETCH_MAX_MB', 10, 1, 200) * 1024 * 1024,
      maxRedirects: integer(env, 'FETCH_MAX_REDIRECTS', 5, 0, 20),
      concurrency: integer(env, 'FETCH_CONCURRENCY', 16, 1, 1000),
      perHostConcurrency: integer(env, 'FETCH_PER_HOST_CONCURRENCY', DEFAULT_PER_HOST_CONCURRENCY, 1, 100),
      respectRobots: boolean(env, 'FETCH_RESPECT_ROBOTS', false),
    },
    render: {
      defaultMode: enumValue(env, 'RENDER_DEFAULT', 'never', ['never', 'auto', 'always']),
      chromiumPath: text(env, 'CHROMIUM_PATH', '/usr/bin/chromium'),
      contexts: integer(env, 'RENDER_CONTEXTS', 2, 1, 64),
      pageHeapMb: integer(env, 'RENDER_PAGE_HEAP_MB', 512, 16, 16_384),
      browserMaxMb: integer(env, 'RENDER_BROWSER_MAX_MB', 2048, 0, 1_048_576),
      blockedResources: resourceKinds(env, 'RENDER_BLOCK_RESOURCES', ['image', 'font', 'media']),
    },
    search: {
      cacheTtlSeconds: integer(env, 'SEARCH_CACHE_TTL_S', 600, 1, 31_536_000),
      maxPerDomain: integer(env, 'SEARCH_MAX_PER_DOMAIN', 3, 0, 20),
      deepPages: integer(env, 'SEARCH_DEEP_PAGES', 5, 1, 20),
      deepPageTimeoutMs: integer(env, 'SEARCH_DEEP_PAGE_TIMEOUT_MS', 5000, 100, 60_000),
      authority: authorityList(env, 'SEARCH_AUTHORITY'),
    },
    validate: { subjects: subjectsFrom(env), judge: judgeFrom(env) },
    searxng: searxngFrom(env),
    llm: llmFrom(env),
    upstreamBreaker: {
      failures: integer(env, 'UPSTREAM_BREAKER_FAILURES', 5, 1, 1000),
      windowMs: integer(env, 'UPSTREAM_BREAKER_WINDOW_MS', 60_000, 100, 3_600_000),
      cooldownMs: integer(env, 'UPSTREAM_BREAKER_COOLDOWN_MS', 30_000, 100, 3_600_000),
    },
    crawlMaxUnfinished: integer(env, 'CRAWL_MAX_UNFINISHED', 5, 1, 1000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 25_000, 1000, 600_000),
    tenantMetrics: enumValue(env, 'TENANT_METRICS', 'key', ['key', 'account', 'off']),
    logLevel: enumValue(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    accessLog: enumValue(env, 'ACCESS_LOG', 'off', ['on', 'off']) === 'on',
    region: text(env, 'REGION', 'local'),
    audit: {
      capture: enumValue(env, 'AUDIT_CAPTURE', 'on', ['on', 'off']) === 'on',
      retentionDays: integer(env, 'AUDIT_RETENTION_DAYS', 90, 1, 3650),
      rollupRetentionDays: integer(env, 'AUDIT_ROLLUP_RETENTION_DAYS', 730, 1, 36_500),
      backlogMax: integer(env, 'AUDIT_BACKLOG_MAX', 500_000, 1000, 100_000_000),
      claimIdleMs: integer(env, 'AUDIT_CLAIM_IDLE_MS', 30_000, 1000, 3_600_000),
      handoffTimeoutMs: integer(env, 'AUDIT_HANDOFF_TIMEOUT_MS', 1000, 50, 60_000),
    },
    notify: {
      maxAttempts: integer(env, 'NOTIFY_MAX_ATTEMPTS', 10, 1, 50),
      retryBaseMs: integer(env, 'NOTIFY_RETRY_BASE_MS', 5000, 10, 3_600_000),
      timeoutMs: integer(env, 'NOTIFY_TIMEOUT_MS', 10_000, 100, 120_000),
      concurrency: integer(env, 'NOTIFY_CONCURRENCY', 10, 1, 1000),
      lockMs: integer(env, 'NOTIFY_LOCK_MS', 30_000, 500, 600_000),
    },
    smtp: smtpFrom(env),
    alertIntervalMs: integer(env, 'ALERT_EVAL_INTERVAL_MS', 30_000, 1000, 3_600_000),
  };
  return deepFreeze(config);
}

// The other settings are read even while their service is off, so a typo fails now, not once it is switched on.
function searxngFrom(env: Env): Config['searxng'] {
  const timeoutMs = integer(env, 'SEARXNG_TIMEOUT_MS', 3000, 100, 60_000);
  if (optionalText(env, 'SEARXNG_URL') === undefined) return undefined;
  return { url: url(env, 'SEARXNG_URL', '', ['http:', 'https:']), timeoutMs };
}

function llmFrom(env: Env): LlmConfig | undefined {
  const timeoutMs = integer(env, 'LLM_TIMEOUT_MS', 8000, 100, 120_000);
  const maxTokens = integer(env, 'LLM_MAX_TOKENS', 512, 16, 32_768);
  if (optionalText(env, 'LLM_BASE_URL') === undefined) return undefined;
  const baseUrl = url(env, 'LLM_BASE_URL', '', ['http:', 'https:']);
  const model = optionalText(env, 'LLM_MODEL');
  if (model === undefined) throw new ConfigError('LLM_MODEL', 'must be set when LLM_BASE_URL is set');
  return { baseUrl, model, apiKey: optionalText(env, 'LLM_API_KEY'), timeoutMs, maxTokens };
}

/**
 * VALIDATION_JUDGE=llm: validation's model judge, on its own endpoint (JUDGE_*) or the
 * summarizer's (LLM_*). Each JUDGE_* setting falls back to its LLM_* one, except the key: an
 * LLM_API_KEY is sent only to LLM_BASE_URL, never to another JUDGE_BASE_URL.
 */
function judgeFrom(env: Env): JudgeConfig | undefined {
  const mode = enumValue(env, 'VALIDATION_JUDGE', 'off', ['off', 'llm']);
  const ownUrl = optionalText(env, 'JUDGE_BASE_URL') === undefined ? undefined : url(env, 'JUDGE_BASE_URL', '', ['http:', 'https:']);
  const timeoutMs = integer(env, 'JUDGE_TIMEOUT_MS', integer(env, 'LLM_TIMEOUT_MS', 8000, 100, 120_000), 100, 120_000);
  const maxPassages = integer(env, 'JUDGE_MAX_PASSAGES', 3, 1, 20);
  if (mode === 'off') return undefined;
  const llmUrl = optionalText(env, 'LLM_BASE_URL') === undefined ? undefined : url(env, 'LLM_BASE_URL', '', ['http:', 'https:']);
  const baseUrl = ownUrl ?? llmUrl;
  if (baseUrl === undefined) throw new ConfigError('VALIDATION_JUDGE', 'is llm: set JUDGE_BASE_URL, or LLM_BASE_URL for the summarizer\'s endpoint');
  const model = optionalText(env, 'JUDGE_MODEL') ?? optionalText(env, 'LLM_MODEL');
  if (model === undefined) throw new ConfigError('JUDGE_MODEL', 'must be set (or LLM_MODEL) when VALIDATION_JUDGE is llm');
  const sameEndpoint = llmUrl !== undefined && sameBase(baseUrl, llmUrl);
  return {
    baseUrl,
    model,
    apiKey: optionalText(env, 'JUDGE_API_KEY') ?? (sameEndpoint ? optionalText(env, 'LLM_API_KEY') : undefined),
    timeoutMs,
    maxTokens: integer(env, 'LLM_MAX_TOKENS', 512, 16, 32_768),
    maxPassages,
  };
}

/** Two base URLs of one endpoint, trailing slashes aside. */
function sameBase(a: string, b: string): boolean {
  const trimmed = (value: string) => {
    const parsed = new URL(value);
    parsed.pathname = parsed.pathname.replace(/\/+$/, '');
    return parsed.href;
  };
  return trimmed(a) === trimmed(b);
}

function smtpFrom(env: Env): SmtpConfig | undefined {
  const port = integer(env, 'SMTP_PORT', 587, 1, 65535);
  const secure = boolean(env, 'SMTP_SECURE', false);
  const starttls = enumValue(env, 'SMTP_STARTTLS', 'required', ['required', 'opportunistic', 'off']);
  const rejectUnauthorized = boolean(env, 'SMTP_TLS_REJECT_UNAUTHORIZED', true);
  const ca = fileSetting(env, 'SMTP_TLS_CA', (pem) => {
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('must be a PEM file of one or more certificates');
    return pem;
  });
  const user = optionalText(env, 'SMTP_USER');
  const pass = env.SMTP_PASSWORD === undefined || env.SMTP_PASSWORD === '' ? undefined : env.SMTP_PASSWORD;
  if ((user === undefined) !== (pass === undefined)) {
    throw new ConfigError(user === undefined ? 'SMTP_USER' : 'SMTP_PASSWORD', 'must be set together with its pair (SMTP_USER and SMTP_PASSWORD)');
  }
  const from = optionalText(env, 'SMTP_FROM');
  if (from !== undefined && !/^[^\s@<>]+@[^\s@<>]+$|<[^\s@<>]+@[^\s@<>]+>$/.test(from)) {
    throw new ConfigError('SMTP_FROM', `must be an email address, optionally with a name ("Alerts <alerts@example.com>"), got "${from}"`);
  }
  const host = optionalText(env, 'SMTP_HOST');
  if (host === undefined) return undefined;
  if (from === undefined) throw new ConfigError('SMTP_FROM', 'must be set when SMTP_HOST is set (the sender of email notifications)');
  if (user !== undefined && !secure && starttls === 'off') {
    throw new ConfigError('SMTP_STARTTLS', 'must not be off while SMTP_USER is set: the password would cross the network in clear text (use required, or SMTP_SECURE=true)');
  }
  return { host, port, secure, starttls, auth: user !== undefined ? { user, pass: pass! } : undefined, from, tls: { ca, rejectUnauthorized } };
}

/** `nih.gov=0.9,who.int=0.9,example-blog.com=0.2`: host names with a trust weight between 0 and 1. */
function authorityList(env: Env, name: string): SearchConfig['authority'] {
  const value = optionalText(env, name);
  if (value === undefined) return [];
  return value.split(',').map((item) => item.trim()).filter(Boolean).map((item) => {
    const match = /^([a-z0-9-]+(?:\.[a-z0-9-]+)*)\.?=(0(?:\.\d+)?|1(?:\.0+)?)$/i.exec(item);
    if (!match) throw new ConfigError(name, `has "${item}": expected host=weight with a weight from 0 to 1, such as nih.gov=0.9`);
    return { domain: match[1]!.toLowerCase(), weight: Number(match[2]) };
  });
}

function plansFrom(env: Env): readonly Plan[] {
  return fileSetting(env, 'PLANS_FILE', parsePlans) ?? DEFAULT_PLANS;
}

function subjectsFrom(env: Env): Subjects {
  return fileSetting(env, 'VALIDATE_SUBJECTS_FILE', parseSubjects) ?? BUILT_IN_SUBJECTS;
}

/** The file a variable names, read and parsed; undefined when the variable is unset. */
function fileSetting<T>(env: Env, name: string, parse: (contents: string) => T): T | undefined {
  const file = optionalText(env, name);
  if (file === undefined) return undefined;
  let contents: string;
  try {
    contents = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(name, `cannot be read: ${(error as Error).message}`);
  }
  try {
    return parse(contents);
  } catch (error) {
    throw new ConfigError(name, (error as Error).message);
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
