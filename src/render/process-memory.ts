/**
 * Memory of a process and all its descendants, as Linux accounts it: the proportional set size
 * (PSS), which shares each page among the processes mapping it, so a browser's many processes
 * (browser, GPU/utility, one renderer per site) add up to what they really hold, not to the
 * multiple that summing resident sizes would give.
 */
import fs from 'node:fs/promises';

/** MB of the tree rooted at `pid`, or undefined where /proc cannot tell (not Linux, the process gone). */
export async function treeMemoryMb(pid: number): Promise<number | undefined> {
  const pids = await descendants(pid);
  if (!pids) return undefined;
  let kb = 0;
  for (const each of [pid, ...pids]) kb += (await pssKb(each)) ?? 0;
  return kb / 1024;
}

/** The process ids below `pid`, from the parent ids in /proc/N/stat. */
export async function descendants(pid: number): Promise<number[] | undefined> {
  let entries: string[];
  try {
    entries = await fs.readdir('/proc');
  } catch {
    return undefined;
  }
  const children = new Map<number, number[]>();
  await Promise.all(entries.filter((name) => /^\d+$/.test(name)).map(async (name) => {
    const stat = await fs.readFile(`/proc/${name}/stat`, 'utf8').catch(() => undefined);
    // The command name (2nd field) is in parentheses and may hold spaces: fields are counted after its ')'.
    const ppid = stat === undefined ? NaN : Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!Number.isInteger(ppid)) return;
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }));
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

async function pssKb(pid: number): Promise<number | undefined> {
  const rollup = await fs.readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => undefined);
  const match = rollup === undefined ? null : /^Pss:\s+(\d+) kB/m.exec(rollup);
  return match ? Number(match[1]) : undefined;
}
