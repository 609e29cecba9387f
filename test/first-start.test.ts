import { expect } from 'chai';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import { PROJECT_ROOT } from '../src/paths.js';
import { openStorage } from '../src/storage/connection.js';
import { call, testEnv } from './helpers/service.js';
import { runDatabaseUrl, runName } from './helpers/run-scope.js';
import { until } from './helpers/wait.js';
import { freePort } from './helpers/free-port.js';

interface Run {
  stderr: () => string;
  exited: Promise<number | null>;
  stop: () => void;
}

/** `npm start`'s process (node dist/src/main.js) with the given environment, its stderr collected. */
function start(env: Record<string, string>): Run {
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist/src/main.js')], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { stderr: () => stderr, exited, stop: () => child.kill('SIGTERM') };
}

describe('a first start on a fresh server', function () {
  this.timeout(60_000);

  it('creates its database, prints the generated master key plainly on stderr at any log level, and the key works', async () => {
    const port = await freePort();
    const run = start(testEnv({ DATABASE_URL: runDatabaseUrl('first_start'), PORT: String(port), LOG_LEVEL: 'error', MASTER_API_KEY: '' }));
    try {
      const base = `http://127.0.0.1:${port}`;
      await until(async () => (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)), 30_000);
      const key = /^ {4}(sev_master_\S+)$/m.exec(run.stderr())?.[1];
      expect(key, run.stderr()).to.be.a('string');
      const whoami = await call(base, '/v1/auth/whoami', { key: key! });
      expect(whoami.status).to.equal(200);
      expect(whoami.json.data.type).to.equal('master');
    } finally {
      run.stop();
    }
    expect(await run.exited).to.equal(0);
  });

  it('stops with one line saying what to run when the database is missing and the user may not create it', async () => {
    const user = runName('nocreate');
    const admin = openStorage(process.env.DATABASE_URL!, 1);
    await sql`CREATE USER ${sql.lit(user)}@'%' IDENTIFIED BY 'secret'`.execute(admin.db);
    try {
      const url = new URL(runDatabaseUrl('not_allowed'));
      url.username = user;
      url.password = 'secret';
      const run = start(testEnv({ DATABASE_URL: url.href, PORT: String(await freePort()) }));
      expect(await run.exited).to.equal(1);
      const lines = run.stderr().trim().split('\n');
      expect(lines).to.have.length(1);
      expect(lines[0]).to.match(/^The database "sev_t_\w+_not_allowed" does not exist on 127\.0\.0\.1:3306, and user "sev_t_\w+_nocreate" may not create it: run CREATE DATABASE `sev_t_\w+_not_allowed`; as an administrator/);
    } finally {
      await sql`DROP USER IF EXISTS ${sql.lit(user)}@'%'`.execute(admin.db);
      await admin.close();
    }
  });
});
