import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';
import { freePort } from './free-port.js';
import { testEnv } from './service.js';
import { until } from './wait.js';

export interface ServiceProcess {
  child: ChildProcess;
  /** The API's address; a worker's probe and metrics port. */
  url: string;
  /** The process's last lines of output, for the report of a failure. */
  output(): string;
  /** Resident memory and V8 heap in use after a full collection, from the process's own /metrics. */
  memory(): Promise<{ rss: number; heapUsed: number }>;
  stop(): Promise<void>;
  /** SIGKILL, as a crash or an out-of-memory kill ends a process: nothing of the shutdown runs. */
  kill(): Promise<void>;
}

/** Processes still running when the test process exits are killed then, not left serving. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * `npm start` as a user runs it (`node dist/src/main.js`), in a process of its own on a free
 * port; or `npm run api` (role `api`), or `npm run worker` (role `worker`, whose probes and
 * metrics listen on the free port). `nodeArgs` go to node before the entry (a benchmark's --cpu-prof).
 */
export async function spawnService(overrides: Record<string, string> = {}, role: 'all' | 'api' | 'worker' = 'all', nodeArgs: readonly string[] = []): Promise<ServiceProcess> {
  const port = await freePort();
  const env = testEnv({ [role === 'worker' ? 'WORKER_METRICS_PORT' : 'PORT']: String(port), LOG_LEVEL: 'warn', ...overrides });
  const entry = role === 'worker' ? ['dist/workers/main.js'] : role === 'api' ? ['dist/src/main.js', '--role=api'] : ['dist/src/main.js'];
  // --expose-gc: SIGUSR2 then runs a full collection (lifecycle.ts), for memory() to read the live heap.
  const child = spawn(process.execPath, ['--expose-gc', ...nodeArgs, path.join(PROJECT_ROOT, entry[0]!), ...entry.slice(1)], {
    env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - 200));
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => {
    running.delete(child);
    resolve();
  }));
  const url = `http://127.0.0.1:${port}`;
  let gone = false;
  void exited.then(() => { gone = true; });
  await until(async () => {
    if (gone) throw new Error(`service exited at start:\n${lines.join('\n')}`);
    return fetch(`${url}/livez`).then((r) => r.ok, () => false);
  }, 30_000);
  return {
    child,
    url,
    output: () => lines.join('\n'),
    async memory() {
      child.kill('SIGUSR2');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const text = await (await fetch(`${url}/metrics`)).text();
      const read = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
      return { rss: read('process_resident_memory_bytes'), heapUsed: read('nodejs_heap_size_used_bytes') };
    },
    async stop() {
      if (gone) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
