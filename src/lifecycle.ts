import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger, type Logger } from './log/logger.js';
import type { Role } from './metrics/metrics.js';
import { startService } from './service.js';
import { StartupError } from './errors/startup-error.js';

/**
 * Process entry shared by `npm start`, `npm run api` and `npm run worker`: read config once
 * (a bad value exits 1 naming the variable), start the role, and on SIGTERM or SIGINT shut
 * down gracefully and exit 0. A second signal exits at once.
 */
export async function runProcess(role: Role): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger: Logger = createLogger(config.logLevel, role);
  let service: Awaited<ReturnType<typeof startService>>;
  try {
    service = await startService(config, role, logger);
  } catch (error) {
    if (error instanceof StartupError) process.stderr.write(`${error.message}\n`);
    else logger.fatal({ err: error }, 'start-up failed');
    process.exit(1);
  }

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Started with --expose-gc (to measure memory, as the resilience suite does), SIGUSR2 runs a full
  // collection: what the heap holds afterwards is what is still referenced, not garbage not yet swept.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) process.on('SIGUSR2', () => gc());
}
