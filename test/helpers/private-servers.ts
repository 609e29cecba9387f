import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createConnection } from 'mysql2/promise';
import { freePort } from './free-port.js';
import { until } from './wait.js';

/**
 * Redis and MariaDB servers of a test's own, on free ports with data directories of their own,
 * for fault tests that stop, kill and restart a dependency: the shared servers other suites use
 * are never touched. Each keeps its port and data across restarts, as a server restarted by its
 * supervisor does. Whatever is left running when the test process exits is killed then, and its
 * directory removed.
 */
export interface PrivateServer {
  readonly port: number;
  /** `redis://…` or `mysql://…` (MariaDB: without a database; see `databaseUrl`). */
  readonly url: string;
  /** The data directory. */
  readonly dir: string;
  /** Starts the server on its port and data directory and resolves once it answers. */
  start(): Promise<void>;
  /** A graceful stop (SIGTERM): the server finishes what it can, writes what it holds, and exits. */
  stop(): Promise<void>;
  /** SIGKILL: gone at once, as in a crash or an out-of-memory kill. */
  kill(): Promise<void>;
  /** Kills the server if it runs and removes its directory. */
  remove(): Promise<void>;
  /** The server's recent output, for the report of a failure. */
  output(): string;
}

const running = new Set<ChildProcess>();
const directories = new Set<string>();
function removeAll(): void {
  for (const child of running) child.kill('SIGKILL');
  for (const dir of directories) rmSync(dir, { recursive: true, force: true });
}
process.once('exit', removeAll);
// Node ends on SIGTERM without 'exit' (mocha's SIGINT handler exits, which emits it): the servers would outlive the run.
process.once('SIGTERM', () => process.exit(143));

/**
 * Starts a Redis with append-only-file persistence fsynced on every write (`appendfsync
 * always`): what a deployment needs so that a restart, graceful or not, loses nothing Redis
 * acknowledged (docs/resilience.md, "Redis persistence"). No RDB snapshots: the AOF alone is replayed at
 * start. `persistent: false`: no persistence at all, a Redis that restarts empty.
 */
export async function startPrivateRedis(options: { persistent: boolean } = { persistent: true }): Promise<PrivateServer> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sev-redis-'));
  directories.add(dir);
  const args = ['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--save', '', '--appendonly', options.persistent ? 'yes' : 'no',
    '--appendfsync', 'always', '--maxmemory-policy', 'noeviction', '--logfile', path.join(dir, 'redis.log')];
  return started(new Server(port, `redis://127.0.0.1:${port}`, dir, () => spawn('redis-server', args, { stdio: 'ignore' }),
    () => redisAnswers(port), () => readTail(path.join(dir, 'redis.log'))));
}

/**
 * Starts MariaDB on a data directory made for it (`mariadb-install-db`, about 4 s), root without a
 * password on 127.0.0.1, InnoDB durable on every commit (the default), no binary log.
 */
export async function startPrivateMariaDb(): Promise<PrivateServer> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sev-mariadb-'));
  directories.add(dir);
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'error.log');
  // Both the initialisation and the server: the redo log small (the default 96 MB is written out in full), the buffer pool too.
  const server = ['--innodb-log-file-size=8M', '--innodb-buffer-pool-size=64M', '--skip-name-resolve'];
  // The test runs as root, which mariadbd refuses unless told to run as root.
  const user = process.getuid?.() === 0 ? ['--user=root'] : [];
  try {
    await run('mariadb-install-db', ['--no-defaults', `--datadir=${data}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...user, ...server]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    directories.delete(dir);
    throw error;
  }
  const args = ['--no-defaults', ...user, `--datadir=${data}`, `--port=${port}`, '--bind-address=127.0.0.1', `--socket=${path.join(dir, 'mariadb.sock')}`,
    `--pid-file=${path.join(dir, 'mariadb.pid')}`, `--log-error=${log}`, '--skip-log-bin', '--max-connections=500', ...server];
  // Debian installs mariadbd in /usr/sbin, which a user's PATH may lack.
  const env = { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/usr/local/sbin` };
  return started(new Server(port, `mysql://root@127.0.0.1:${port}`, dir, () => spawn('mariadbd', args, { stdio: 'ignore', env }),
    () => mariaDbAnswers(port), () => readTail(log)));
}

async function started(server: Server): Promise<PrivateServer> {
  try {
    await server.start();
  } catch (error) {
    await server.remove();
    throw error;
  }
  return server;
}

class Server implements PrivateServer {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    readonly port: number,
    readonly url: string,
    readonly dir: string,
    private readonly launch: () => ChildProcess,
    private readonly answers: () => Promise<boolean>,
    readonly output: () => string,
  ) {}

  async start(): Promise<void> {
    if (this.child) throw new Error(`server on port ${this.port} is already running`);
    const child = this.launch();
    this.child = child;
    running.add(child);
    let gone = false;
    this.exited = new Promise((resolve) => child.once('exit', () => {
      gone = true;
      running.delete(child);
      if (this.child === child) this.child = undefined;
      resolve();
    }));
    await until(async () => {
      if (gone) throw new Error(`server on port ${this.port} exited at start:\n${this.output()}`);
      return this.answers();
    }, 60_000);
  }

  stop(): Promise<void> {
    return this.signal('SIGTERM');
  }

  kill(): Promise<void> {
    return this.signal('SIGKILL');
  }

  async remove(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
    directories.delete(this.dir);
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    this.child?.kill(signal);
    await this.exited;
  }
}

/** PING answered with PONG: the server is up and has loaded its data (it answers LOADING until then). */
function redisAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

async function mariaDbAnswers(port: number): Promise<boolean> {
  try {
    const connection = await createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 1000 });
    try {
      await connection.query('SELECT 1');
      return true;
    } finally {
      connection.destroy();
    }
  } catch {
    return false;
  }
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}:\n${output}`))));
  });
}

function readTail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-40).join('\n');
  } catch {
    return '';
  }
}
