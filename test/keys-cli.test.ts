import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../src/paths.js';
import { call, startTestService, testEnv, type TestService } from './helpers/service.js';
import { runCli, type CliRun } from './helpers/cli.js';

// The command line built beside this test, whichever output directory the build used.
const CLI = fileURLToPath(new URL('../src/cli/keys.js', import.meta.url));

describe('keys command line', function () {
  // Each command starts a Node process of its own: seconds apiece on a loaded two-core machine.
  this.timeout(60_000);
  // One queue namespace for the command line and the service, so they share the invalidation channel.
  const env = testEnv();
  let service: TestService;
  // The suite's keys live on an account of their own, so listing them is not crowded out by other tests' keys.
  let accountId: string;
  before(async () => {
    service = await startTestService({ QUEUE_PREFIX: env.QUEUE_PREFIX! });
    const account = await cli('accounts', 'create', '--name', 'keys cli', '--plan', 'enterprise', '--json');
    expect(account.code, account.stderr).to.equal(0);
    accountId = (JSON.parse(account.stdout) as { id: string }).id;
  });
  after(() => service.close());

  function cli(...args: string[]): Promise<CliRun> {
    return runCli(CLI, args, env, { cwd: PROJECT_ROOT });
  }

  async function createKey(...args: string[]): Promise<{ id: string; key: string }> {
    const res = await cli('create', '--account', accountId, ...args, '--json');
    expect(res.code, res.stderr).to.equal(0);
    return JSON.parse(res.stdout) as { id: string; key: string };
  }

  it('creates a live key that the running service accepts, and lists it as active', async () => {
    const created = await createKey('--name', 'cli key');
    expect(created.key).to.match(/^sev_live_/);
    expect((await call(service.url, '/v1/health', { key: created.key })).status).to.equal(200);

    const list = await cli('list', '--account', accountId);
    expect(list.code, list.stderr).to.equal(0);
    const row = list.stdout.split('\n').find((line) => line.startsWith(created.id));
    expect(row).to.match(/\bcli key\s+standard\s+live\s+active\b/);
  });

  it('revokes a key so that the running service refuses it at once, cached or not', async () => {
    const created = await createKey('--name', 'to revoke');
    // The first request caches the key lookup in the service; only the invalidation can clear it.
    expect((await call(service.url, '/v1/health', { key: created.key })).status).to.equal(200);

    const revoked = await cli('revoke', created.id);
    expect(revoked.code, revoked.stderr).to.equal(0);
    expect(revoked.stdout).to.include(`Key ${created.id} is revoked`);

    const res = await call(service.url, '/v1/health', { key: created.key });
    expect(res.status).to.equal(401);
    expect(res.json.error.code).to.equal('INVALID_API_KEY');
  });

  it('refuses a scoped key on a plan without scoped keys, as the API does', async () => {
    const account = await cli('accounts', 'create', '--name', 'x', '--plan', 'free', '--json');
    expect(account.code, account.stderr).to.equal(0);
    const { id } = JSON.parse(account.stdout) as { id: string };

    const res = await cli('create', '--name', 'scoped', '--type', 'scoped', '--permissions', 'search', '--account', id);
    expect(res.code).to.equal(1);
    expect(res.stderr).to.include('error FEATURE_NOT_AVAILABLE');
    expect(res.stdout).to.equal('');
  });

  it('creates a sandbox key and says its secret is shown only once', async () => {
    const res = await cli('create', '--name', 'sandbox', '--mode', 'test', '--account', accountId);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.include('shown only once');
    expect(res.stdout).to.match(/^ {2}sev_test_\S+$/m);
  });

  it('exits 2 with the usage on an unknown option, and 0 with it on help', async () => {
    const bad = await cli('create', '--name', 'x', '--bogus');
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.include("'--bogus'").and.to.include('Usage: npm run keys');

    const help = await cli('--help');
    expect(help.code).to.equal(0);
    expect(help.stdout).to.include('Usage: npm run keys').and.to.include('accounts set-plan ID PLAN');
  });
});
