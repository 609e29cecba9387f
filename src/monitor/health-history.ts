import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * What the health checks of every API process have found, kept in Redis so that each process
 * reports the same uptime and incidents (prefix = QUEUE_PREFIX):
 *
 *   <prefix>:health:uptime           hash: `<slot>:checks` and `<slot>:up` per 10-minute slot
 *                                    (epoch ms / 600,000); slots older than the window are
 *                                    deleted by the process that opens a new slot.
 *   <prefix>:health:incidents:open   hash: `<component>@<region>` → JSON of the open incident.
 *   <prefix>:health:incidents        list of ended incidents, newest first, the last 50 kept.
 *
 * A process that cannot reach Redis keeps its checks and the incidents it saw, writes them when
 * Redis answers again, and meanwhile reports its own.
 */

export type HealthStatus = 'healthy' | 'degraded' | 'unhealthy';

export interface Incident {
  id: string;
  component: string;
  /** Region of the process that observed it. */
  region: string;
  status: HealthStatus;
  message: string;
  started_at: string;
  /** null while it lasts. */
  resolved_at: string | null;
}

/** A component as one check found it. */
export interface Observation {
  component: string;
  status: HealthStatus;
  message: string;
}

/** An incident as this process saw it, and how much of it Redis has: nothing, its start, or all of it. */
type LocalIncident = Incident & { redis: 'none' | 'open' | 'ended' };

export const UPTIME_WINDOW_MS = 24 * 60 * 60 * 1000;
export const UPTIME_SLOT_MS = 10 * 60 * 1000;
const KEPT_ENDED = 50;
export const REPORTED_INCIDENTS = 20;

const uptimeKey = (prefix: string) => `${prefix}:health:uptime`;
const openKey = (prefix: string) => `${prefix}:health:incidents:open`;
const endedKey = (prefix: string) => `${prefix}:health:incidents`;

/**
 * KEYS: open hash, ended list. ARGV: now (ISO), region, observations (JSON array), incidents this
 * process saw open and end while Redis was away (JSON array), list length kept.
 * Per observation: a healthy component ends its open incident (at the observation's ended_at
 * when this process saw the end while Redis was away); any other status opens one unless one of
 * that status is open (an open one of another status ends first). Answers the open incidents
 * and the ended ones.
 */
const SYNC_SCRIPT = `
local now = ARGV[1]
local region = ARGV[2]
local observations = cjson.decode(ARGV[3])
local ended = cjson.decode(ARGV[4])
local keep = tonumber(ARGV[5])
local function finish(json, at)
  local incident = cjson.decode(json)
  -- When this process saw it end (Redis away then), unless that was before it began.
  if type(at) ~= 'string' or at < incident.started_at then at = now end
  incident.resolved_at = at
  redis.call('LPUSH', KEYS[2], cjson.encode(incident))
end
for _, o in ipairs(observations) do
  local field = o.component .. '@' .. region
  local open = redis.call('HGET', KEYS[1], field)
  if o.status == 'healthy' then
    if open then
      finish(open, o.ended_at)
      redis.call('HDEL', KEYS[1], field)
    end
  else
    local same = false
    if open then same = cjson.decode(open).status == o.status end
    if not same then
      local started = o.started_at
      if open then
        finish(open, nil)
        started = now
      end
      redis.call('HSET', KEYS[1], field, cjson.encode({ id = o.id, component = o.component, region = region, status = o.status,
        message = o.message, started_at = started, resolved_at = cjson.null }))
    end
  end
end
for _, incident in ipairs(ended) do
  redis.call('LPUSH', KEYS[2], cjson.encode(incident))
end
redis.call('LTRIM', KEYS[2], 0, keep - 1)
return { redis.call('HVALS', KEYS[1]), redis.call('LRANGE', KEYS[2], 0, keep - 1) }
`;

/** Newest first, then the open ones before ended ones of the same start. */
function newestFirst(incidents: Incident[]): Incident[] {
  return incidents.sort((a, b) => b.started_at.localeCompare(a.started_at) || (a.resolved_at === null ? -1 : b.resolved_at === null ? 1 : 0));
}

export class HealthHistory {
  /** This process's own view: the incident open per component, and every incident it saw. */
  private readonly open = new Map<string, LocalIncident>();
  private readonly seen: LocalIncident[] = [];
  /** Checks per slot not yet added in Redis. */
  private readonly unwrittenChecks = new Map<number, { checks: number; up: number }>();
  private readonly local = { checks: 0, up: 0 };
  private lastSlot: number | undefined;

  constructor(private readonly redis: Redis, private readonly prefix: string, private readonly region: string) {}

  /**
   * Records one check (overall status and every component) and answers the uptime and the
   * recent incidents of the whole deployment, or of this process alone when Redis does not
   * answer within `bounded`'s time.
   */
  async record(
    now: Date, overall: HealthStatus, observations: readonly Observation[], bounded: <T>(promise: Promise<T>) => Promise<T>,
  ): Promise<{ uptime: number; incidents: Incident[] }> {
    const at = now.toISOString();
    this.track(at, observations);
    const up = overall !== 'unhealthy' ? 1 : 0;
    this.local.checks++;
    this.local.up += up;
    const slot = Math.floor(now.getTime() / UPTIME_SLOT_MS);
    const pending = this.unwrittenChecks.get(slot) ?? { checks: 0, up: 0 };
    pending.checks++;
    pending.up += up;
    this.unwrittenChecks.set(slot, pending);
    try {
      const [uptime, incidents] = await bounded(Promise.all([this.writeUptime(now, slot), this.sync(at, observations)]));
      return { uptime, incidents };
    } catch {
      return {
        uptime: Math.round((this.local.up / this.local.checks) * 10_000) / 100,
        incidents: newestFirst(this.seen.map(({ redis: _, ...incident }) => incident)).slice(0, REPORTED_INCIDENTS),
      };
    }
  }

  private track(at: string, observations: readonly Observation[]): void {
    for (const { component, status, message } of observations) {
      const current = this.open.get(component);
      if (status === 'healthy') {
        if (current) {
          current.resolved_at = at;
          this.open.delete(component);
        }
      } else if (!current || current.status !== status) {
        if (current) current.resolved_at = at;
        const incident = { id: `inc_${randomUUID().replace(/-/g, '').slice(0, 16)}`, component, region: this.region, status, message, started_at: at, resolved_at: null, redis: 'none' as const };
        this.open.set(component, incident);
        this.seen.push(incident);
        if (this.seen.length > KEPT_ENDED) this.seen.shift();
      }
    }
  }

  private async writeUptime(now: Date, slot: number): Promise<number> {
    const key = uptimeKey(this.prefix);
    const multi = this.redis.multi();
    // Taken out at once: a check running beside this one must not add them a second time.
    const written = [...this.unwrittenChecks];
    this.unwrittenChecks.clear();
    for (const [s, counts] of written) {
      multi.hincrby(key, `${s}:checks`, counts.checks);
      multi.hincrby(key, `${s}:up`, counts.up);
    }
    multi.hgetall(key);
    let replies;
    try {
      replies = await multi.exec();
    } catch (error) {
      for (const [s, counts] of written) {
        const pending = this.unwrittenChecks.get(s) ?? { checks: 0, up: 0 };
        this.unwrittenChecks.set(s, { checks: pending.checks + counts.checks, up: pending.up + counts.up });
      }
      throw error;
    }
    const all = (replies?.at(-1)?.[1] ?? {}) as Record<string, string>;
    const first = Math.floor((now.getTime() - UPTIME_WINDOW_MS) / UPTIME_SLOT_MS) + 1;
    let checks = 0;
    let up = 0;
    const old: string[] = [];
    for (const [field, value] of Object.entries(all)) {
      const [s, kind] = field.split(':');
      if (Number(s) < first) old.push(field);
      else if (kind === 'checks') checks += Number(value);
      else up += Number(value);
    }
    if (this.lastSlot !== slot && old.length > 0) await this.redis.hdel(key, ...old);
    this.lastSlot = slot;
    return checks === 0 ? 100 : Math.round((up / checks) * 10_000) / 100;
  }

  private async sync(at: string, observations: readonly Observation[]): Promise<Incident[]> {
    const current = observations.map((o) => {
      const incident = this.open.get(o.component);
      // An incident Redis has open that this process saw end while Redis was away: ended then.
      const ended = o.status === 'healthy' ? this.seen.findLast((i) => i.component === o.component && i.redis === 'open' && i.resolved_at !== null)?.resolved_at : undefined;
      return { ...o, id: incident?.id ?? '', started_at: incident?.started_at ?? at, ...(ended ? { ended_at: ended } : {}) };
    });
    // Incidents that began and ended while Redis was away: only this process saw them.
    const endedUnwritten = this.seen.filter((i) => i.redis === 'none' && i.resolved_at !== null);
    const reply = await this.redis.eval(
      SYNC_SCRIPT, 2, openKey(this.prefix), endedKey(this.prefix),
      at, this.region, JSON.stringify(current), JSON.stringify(endedUnwritten.map(({ redis: _, ...incident }) => incident)), KEPT_ENDED,
    ) as [string[], string[]];
    for (const incident of this.seen) incident.redis = incident.resolved_at === null ? 'open' : 'ended';
    const incidents = [...reply[0], ...reply[1]].map((json) => JSON.parse(json) as Incident);
    return newestFirst(incidents).slice(0, REPORTED_INCIDENTS);
  }
}
