import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HostLoadSampler } from '../src/monitor/host-load.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** A cgroup file system of the test's own: `files` relative to its root, and the process's membership. */
function fakeCgroup(files: Record<string, string>, membership: string): { root: string; procCgroup: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sev-cgroup-'));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), content);
  }
  const procCgroup = path.join(root, 'proc-self-cgroup');
  fs.writeFileSync(procCgroup, membership);
  return { root, procCgroup };
}

describe('host load against cgroup limits', () => {
  const made: string[] = [];
  const sampler = (files: Record<string, string>, membership: string) => {
    const { root, procCgroup } = fakeCgroup(files, membership);
    made.push(root);
    return { sampler: new HostLoadSampler({ cgroupRoot: root, procCgroup }), root };
  };
  after(() => {
    for (const root of made) fs.rmSync(root, { recursive: true, force: true });
  });

  it('reads cgroup v2: CPU time against the quota, the working set against memory.max', async () => {
    const cores = Math.min(1.5, os.cpus().length);
    const { sampler: s, root } = sampler({
      'cpu.max': `${cores * 100000} 100000\n`,
      'cpu.stat': 'usage_usec 1000000\nuser_usec 800000\nsystem_usec 200000\n',
      'memory.max': `${GiB}\n`,
      'memory.current': `${512 * MiB}\n`,
      'memory.stat': `anon ${300 * MiB}\ninactive_file ${112 * MiB}\nactive_file 0\n`,
    }, '0::/\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    // A tenth of a CPU second over the 200 ms (or more, on a busy machine) since the sampler started.
    fs.writeFileSync(path.join(root, 'cpu.stat'), 'usage_usec 1100000\n');
    const load = await s.sample();
    expect(load.host).to.equal(os.hostname());
    expect(load.cpu.capacity).to.equal(cores);
    expect(load.cpu.used).to.be.within(0.05, 0.51);
    expect(load.memory).to.deep.equal({ used: 400 * MiB, limit: GiB });
  });

  it('reads cgroup v1 under the process’s own path, and names the host with it', async () => {
    const { sampler: s } = sampler({
      'cpu,cpuacct/app/cpu.cfs_quota_us': '200000\n',
      'cpu,cpuacct/app/cpu.cfs_period_us': '100000\n',
      'cpu,cpuacct/app/cpuacct.usage': '5000000000\n',
      'memory/app/memory.limit_in_bytes': `${2 * GiB}\n`,
      'memory/app/memory.usage_in_bytes': `${GiB}\n`,
      'memory/app/memory.stat': `cache ${300 * MiB}\ntotal_inactive_file ${24 * MiB}\n`,
    }, '4:memory:/app\n3:cpu,cpuacct:/app\n');
    const load = await s.sample();
    expect(load.host).to.equal(`${os.hostname()}:/app`);
    expect(load.cpu.capacity).to.equal(Math.min(2, os.cpus().length));
    expect(load.memory).to.deep.equal({ used: GiB - 24 * MiB, limit: 2 * GiB });
  });

  it("falls back to the machine's cores and memory without limits", async () => {
    const { sampler: s } = sampler({
      'cpu.max': 'max 100000\n',
      'cpu.stat': 'usage_usec 1\n',
      'memory.max': 'max\n',
      'memory.current': `${MiB}\n`,
    }, '0::/\n');
    const load = await s.sample();
    expect(load.cpu.capacity).to.equal(os.cpus().length);
    expect(load.cpu.used).to.be.within(0, os.cpus().length);
    expect(load.memory.limit).to.equal(os.totalmem());
    expect(load.memory.used).to.be.above(0).and.at.most(os.totalmem());

    // v1's "no limit" is a number larger than the machine's memory; no cgroup at all is the machine too.
    const v1 = sampler({ 'memory/memory.limit_in_bytes': '9223372036854771712\n', 'memory/memory.usage_in_bytes': `${MiB}\n` }, '4:memory:/\n').sampler;
    expect((await v1.sample()).memory.limit).to.equal(os.totalmem());
    const none = sampler({}, '').sampler;
    expect((await none.sample()).memory.limit).to.equal(os.totalmem());
  });
});
