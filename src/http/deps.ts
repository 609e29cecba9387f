import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Logger } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { HealthMonitor } from '../monitor/health.js';
import type { AuditWriter } from '../monitor/audit-writer.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { KeyService } from '../auth/key-service.js';
import type { Clock } from '../clock.js';
import type { UsageMeter } from '../usage/usage-meter.js';
import type { UsageRecorder } from '../usage/usage-recorder.js';
import type { QueueEventsByName, Queues } from '../queue/queues.js';
import type { Storage } from '../storage/connection.js';
import type { ResultCache } from '../cache/result-cache.js';
import type { CrawlService } from '../crawl/crawl-service.js';
import type { SearchService } from '../search/search-service.js';
import type { IndexService } from '../index/index-service.js';
import type { ExtractService } from '../extract/extract-service.js';
import type { ValidateService } from '../validate/validate-service.js';
import type { CacheService } from '../cache/cache-service.js';
import type { KeyUsageService } from '../usage/key-usage-service.js';

/** Everything the HTTP edge needs, built once per process in src/service.ts. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  storage: Storage;
  redis: Redis;
  queues: Queues;
  queueEvents: QueueEventsByName;
  health: HealthMonitor;
  auditWriter: AuditWriter;
  authenticator: Authenticator;
  keys: KeyService;
  usageMeter: UsageMeter;
  usageRecorder: UsageRecorder;
  resultCache: ResultCache;
  crawls: CrawlService;
  search: SearchService;
  index: IndexService;
  extract: ExtractService;
  validate: ValidateService;
  cache: CacheService;
  keyUsage: KeyUsageService;
  clock: Clock;
  version: string;
  /** Aborted when the process starts shutting down: waits on jobs give up with a clean error. */
  shutdownSignal: AbortSignal;
  /** False once shutdown has begun, so /readyz tells load balancers to stop sending traffic. */
  accepting: () => boolean;
}
