/** What a benchmark scenario accumulates over its recorded runs. */
export interface Measured {
  latencies: number[];
  seconds: number;
  cpuMicros: number;
}

/**
 * `concurrency` clients for `forSeconds`, each sending its next request as soon as the last is
 * answered (`one` sends a request and returns its latency in ms). With `into`, the latencies,
 * the wall time and this process's CPU time are added to it; without, the run is a warm-up.
 */
export async function closedLoop(concurrency: number, forSeconds: number, one: () => Promise<number>, into?: Measured): Promise<void> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const deadline = started + forSeconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const latency = await one();
      into?.latencies.push(latency);
    }
  }));
  if (!into) return;
  into.seconds += (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  into.cpuMicros += used.user + used.system;
}
