import fs from 'node:fs';

/** CPU time (user and system) of another process on this machine in µs, from /proc (clock ticks of 10 ms). */
export function cpuOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** The first process whose command name matches, when it runs on this machine and /proc lets us read it. */
export function processNamed(name: RegExp): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (name.test(fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim())) return Number(entry);
    } catch {
      // gone, or not ours to read
    }
  }
  return undefined;
}
