import { promises as fs, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * CPU and memory use of the machine or container a process runs in, against its limits: the
 * cgroup's limits where there are any (v2 `cpu.max`, `memory.max`; v1 `cpu.cfs_quota_us`,
 * `memory.limit_in_bytes`), else the machine's totals.
 *
 *  - CPU with a quota: the cgroup's own CPU time (v2 `cpu.stat` usage_usec, v1 `cpuacct.usage`)
 *    over the wall time since the last sample, against quota / period cores. Without a quota:
 *    the machine's busy time (os.cpus()) against its cores.
 *  - Memory with a limit: the cgroup's working set (`memory.current` or `memory.usage_in_bytes`,
 *    less the reclaimable inactive file cache, as `docker stats` counts it) against the limit.
 *    Without a limit (or one above the machine's memory): the machine's used memory
 *    (total − available) against its total.
 *
 * Processes of one container (one cgroup on one host) see the same figures; `host` names that
 * container, so readers count each once.
 */
export interface HostLoad {
  /** Host name, and the cgroup path when it is not the root: the processes that share these limits. */
  host: string;
  /** Cores in use over the last interval, and cores available. */
  cpu: { used: number; capacity: number };
  /** Bytes in use and bytes available. */
  memory: { used: number; limit: number };
}

export interface HostLoadOptions {
  /** Where the cgroup file system is mounted (tests point it at a directory of their own). */
  cgroupRoot?: string;
  /** The process's cgroup membership file. */
  procCgroup?: string;
}

interface CpuCounter {
  file: string;
  /** Multiplier from the file's unit to seconds. */
  toSeconds: number;
  /** v2 cpu.stat holds several lines; v1 cpuacct.usage one number. */
  field: string | null;
}

interface Limits {
  host: string;
  cpuCores: number | null;
  cpuCounter: CpuCounter | null;
  memoryLimit: number | null;
  memoryCurrent: string | null;
  memoryStat: { file: string; field: string } | null;
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

/** The first of `dirs` holding `file`. */
function locate(dirs: readonly string[], file: string): string | null {
  for (const dir of dirs) {
    const candidate = path.join(dir, file);
    if (readText(candidate) !== null) return candidate;
  }
  return null;
}

/** `field value` lines (cpu.stat, memory.stat) → the value of `field`. */
function statField(text: string, field: string): number | null {
  for (const line of text.split('\n')) {
    const [name, value] = line.split(' ');
    if (name === field && value !== undefined) return Number(value);
  }
  return null;
}

/** The process's cgroup paths: v2 under '', v1 under each controller name. */
function membership(procCgroup: string): Map<string, string> {
  const paths = new Map<string, string>();
  for (const line of (readText(procCgroup) ?? '').split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    for (const controller of match[1]!.split(',')) paths.set(controller, match[2]!);
  }
  return paths;
}

/** Finds the cgroup files once; limits rarely change while a process runs. */
export function detectLimits(options: HostLoadOptions = {}): Limits {
  const root = options.cgroupRoot ?? '/sys/fs/cgroup';
  const paths = membership(options.procCgroup ?? '/proc/self/cgroup');
  const machineCores = os.cpus().length || 1;
  const totalMemory = os.totalmem();
  // A cgroup namespace shows the process's own cgroup at the root; otherwise it is under its path.
  const dirs = (controllerDir: string, controller: string): string[] => {
    const own = paths.get(controller);
    const base = path.join(root, controllerDir);
    return own && own !== '/' ? [path.join(base, own), base] : [base];
  };
  const v2 = dirs('', '');
  let cpuCores: number | null = null;
  let cpuCounter: CpuCounter | null = null;
  let memoryLimit: number | null = null;
  let memoryCurrent: string | null = null;
  let memoryStat: Limits['memoryStat'] = null;

  const cpuMax = locate(v2, 'cpu.max');
  if (cpuMax) {
    const [quota, period] = readText(cpuMax)!.split(' ');
    if (quota !== 'max' && Number(quota) > 0 && Number(period) > 0) cpuCores = Number(quota) / Number(period);
    const stat = locate(v2, 'cpu.stat');
    if (stat) cpuCounter = { file: stat, toSeconds: 1e-6, field: 'usage_usec' };
  } else {
    const cpuDirs = [...dirs('cpu', 'cpu'), ...dirs('cpu,cpuacct', 'cpu')];
    const quota = locate(cpuDirs, 'cpu.cfs_quota_us');
    const period = locate(cpuDirs, 'cpu.cfs_period_us');
    if (quota && period) {
      const q = Number(readText(quota));
      const p = Number(readText(period));
      if (q > 0 && p > 0) cpuCores = q / p;
    }
    const usage = locate([...dirs('cpuacct', 'cpuacct'), ...dirs('cpu,cpuacct', 'cpuacct')], 'cpuacct.usage');
    if (usage) cpuCounter = { file: usage, toSeconds: 1e-9, field: null };
  }
  if (cpuCores !== null) cpuCores = Math.min(cpuCores, machineCores);
  if (cpuCounter === null) cpuCores = null;

  const memoryMax = locate(v2, 'memory.max');
  if (memoryMax) {
    const limit = readText(memoryMax)!;
    if (limit !== 'max') memoryLimit = Number(limit);
    memoryCurrent = locate(v2, 'memory.current');
    const stat = locate(v2, 'memory.stat');
    if (stat) memoryStat = { file: stat, field: 'inactive_file' };
  } else {
    const memoryDirs = dirs('memory', 'memory');
    const limit = locate(memoryDirs, 'memory.limit_in_bytes');
    if (limit) memoryLimit = Number(readText(limit));
    memoryCurrent = locate(memoryDirs, 'memory.usage_in_bytes');
    const stat = locate(memoryDirs, 'memory.stat');
    if (stat) memoryStat = { file: stat, field: 'total_inactive_file' };
  }
  // v1 writes "no limit" as a huge number; a limit above the machine's memory limits nothing.
  if (memoryLimit !== null && (!(memoryLimit > 0) || memoryLimit >= totalMemory)) memoryLimit = null;
  if (memoryCurrent === null) memoryLimit = null;

  const own = paths.get('') ?? paths.get('memory') ?? '/';
  return { host: own && own !== '/' ? `${os.hostname()}:${own}` : os.hostname(), cpuCores, cpuCounter, memoryLimit, memoryCurrent, memoryStat };
}

/** Busy and total CPU time of the machine, in the units os.cpus() reports. */
function machineTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const { user, nice, sys, idle, irq } = cpu.times;
    busy += user + nice + sys + irq;
    total += user + nice + sys + irq + idle;
  }
  return { busy, total };
}

/**
 * Samples the load of this process's host. Each `sample()` reports CPU over the time since the
 * previous one (since construction for the first), memory as it is now.
 */
export class HostLoadSampler {
  private readonly limits: Limits;
  private lastWall = performance.now();
  private lastCgroupSeconds: number | null = null;
  private lastMachine = machineTimes();

  constructor(options: HostLoadOptions = {}) {
    this.limits = detectLimits(options);
    if (this.limits.cpuCounter) this.lastCgroupSeconds = this.cgroupSecondsSync();
  }

  get host(): string {
    return this.limits.host;
  }

  async sample(): Promise<HostLoad> {
    const [cpu, memory] = await Promise.all([this.cpu(), this.memory()]);
    return { host: this.limits.host, cpu, memory };
  }

  private cgroupSecondsSync(): number | null {
    const counter = this.limits.cpuCounter!;
    const text = readText(counter.file);
    return text === null ? null : this.parseCounter(text);
  }

  private parseCounter(text: string): number | null {
    const counter = this.limits.cpuCounter!;
    const value = counter.field === null ? Number(text) : statField(text, counter.field);
    return value === null || !Number.isFinite(value) ? null : value * counter.toSeconds;
  }

  private async cpu(): Promise<HostLoad['cpu']> {
    const now = performance.now();
    const wall = (now - this.lastWall) / 1000;
    this.lastWall = now;
    const { cpuCores, cpuCounter } = this.limits;
    if (cpuCores !== null && cpuCounter) {
      const seconds = this.parseCounter(await fs.readFile(cpuCounter.file, 'utf8').catch(() => ''));
      const previous = this.lastCgroupSeconds;
      this.lastCgroupSeconds = seconds;
      const used = seconds !== null && previous !== null && wall > 0 ? Math.max(0, (seconds - previous) / wall) : 0;
      return { used: Math.min(used, cpuCores), capacity: cpuCores };
    }
    const times = machineTimes();
    const busy = times.busy - this.lastMachine.busy;
    const total = times.total - this.lastMachine.total;
    this.lastMachine = times;
    const cores = os.cpus().length || 1;
    return { used: total > 0 ? (busy / total) * cores : 0, capacity: cores };
  }

  private async memory(): Promise<HostLoad['memory']> {
    const { memoryLimit, memoryCurrent, memoryStat } = this.limits;
    if (memoryLimit !== null && memoryCurrent) {
      const [current, stat] = await Promise.all([
        fs.readFile(memoryCurrent, 'utf8').catch(() => ''),
        memoryStat ? fs.readFile(memoryStat.file, 'utf8').catch(() => '') : Promise.resolve(''),
      ]);
      const inactive = memoryStat ? statField(stat, memoryStat.field) ?? 0 : 0;
      const used = Number(current.trim());
      if (Number.isFinite(used) && current.trim() !== '') return { used: Math.max(0, used - inactive), limit: memoryLimit };
    }
    const total = os.totalmem();
    return { used: total - os.freemem(), limit: total };
  }
}
