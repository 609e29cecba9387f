/**
 * `npm run keys -- <command>`: accounts and API keys from the shell, acting as the operator
 * (master key). It uses KeyService like the HTTP API does, so the same rules hold, and every
 * revocation, rotation or plan change is published to the running API processes at once.
 * Exit codes: 0 done, 1 refused (error code on stderr) or failed, 2 the command line is wrong.
 */
import { parseArgs } from 'node:util';
import { KeyService } from '../auth/key-service.js';
import { operatorPrincipal } from '../auth/principal.js';
import { systemClock } from '../clock.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { ApiError } from '../errors/catalogue.js';
import { openRedis } from '../redis/connection.js';
import { openStorage } from '../storage/connection.js';
import { migrateToLatest } from '../storage/migrate.js';
import { COMMANDS, type Action, type Command, type OptionValues, type Output } from './key-commands.js';

const USAGE = `Usage: npm run keys -- <command> [options]

Commands:
  create --name NAME [--type standard|scoped] [--permissions search,extract,...]
         [--rate-limit N] [--daily-limit N] [--expires-at ISO] [--description TEXT]
         [--account ID] [--mode live|test]
      Create a key. Its secret is printed once and cannot be shown again.
  list [--account ID] [--type standard|scoped|service_account] [--mode live|test] [--limit N]
      List keys with their status.
  revoke ID [--at ISO]
      Revoke a key now, or at a future time.
  rotate ID
      Issue a new secret; the previous one keeps working for 24 hours.
  accounts create --name NAME --plan PLAN
  accounts list [--limit N]
  accounts set-plan ID PLAN
  help
      Show this text.

Every command takes --json, to print the object the HTTP API answers with instead of text.
Settings come from the environment as for the service: DATABASE_URL, REDIS_URL, QUEUE_PREFIX,
PLANS_FILE, DEFAULT_PLAN.
`;

/** A command line that names no command, or a command with the wrong options or arguments. */
class UsageError extends Error {}

interface Invocation {
  readonly action: Action;
  readonly json: boolean;
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    const { action, json } = parse(argv);
    const output = await run(loadConfig(), action);
    process.stdout.write(json ? `${JSON.stringify(output.json, null, 2)}\n` : output.text);
    return 0;
  } catch (error) {
    return report(error);
  }
}

/** Finds the command (one word, or two after "accounts"), checks its options and validates its input. */
function parse(argv: readonly string[]): Invocation {
  const words = argv[0] === 'accounts' ? 2 : 1;
  const name = argv.slice(0, words).join(' ');
  const command: Command | undefined = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) throw new UsageError(`Unknown command "${name}".`);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv.slice(words),
      options: { json: { type: 'boolean' }, ...Object.fromEntries(command.options.map((option) => [option, { type: 'string' as const }])) },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // parseArgs reports an unknown option or a missing value as a TypeError with an ERR_PARSE_ARGS_* code.
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS_')) throw new UsageError((error as Error).message);
    throw error;
  }
  const { values, positionals } = parsed;
  if (positionals.length !== command.args.length) {
    const expected = command.args.length === 0 ? 'no arguments' : command.args.join(' ');
    throw new UsageError(`${name} takes ${expected}, got ${positionals.length === 0 ? 'none' : `"${positionals.join(' ')}"`}.`);
  }
  return { action: command.prepare(values as OptionValues, positionals), json: values.json === true };
}

/** Opens what KeyService needs, runs the action as the operator, and closes everything so the process can exit. */
async function run(config: Config, action: Action): Promise<Output> {
  const storage = openStorage(config.databaseUrl, config.databasePoolSize);
  // A line naming the cause, which a command's own error may not.
  const redis = openRedis(config.redisUrl, { lost: (error) => process.stderr.write(`redis: ${error.message}\n`), restored: () => undefined });
  try {
    // The command line may be the first thing run against a fresh database.
    await migrateToLatest(storage.db);
    const keys = new KeyService(storage.db, redis, config.queuePrefix, systemClock, config.plans);
    await keys.ensureDefaultAccount(config.defaultPlan);
    return await action({ keys, actor: operatorPrincipal(config.rateLimitPerMinute) });
  } finally {
    // Every Redis command has been answered by now; disconnect also stops reconnecting when Redis is away.
    redis.disconnect();
    await storage.close();
  }
}

/** The exit code for an error the operator can act on; anything else is a fault and propagates. */
function report(error: unknown): number {
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
  if (error instanceof ApiError) {
    const details = error.details === undefined ? '' : `${JSON.stringify(error.details, null, 2)}\n`;
    process.stderr.write(`error ${error.code}: ${error.message}\n${details}`);
    return 1;
  }
  throw error;
}

// exitCode rather than exit(): output still being written to a pipe is not cut off.
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
