/**
 * Dashboards (spec 2.12, 4.10): created, listed, read with their values, replaced, deleted and
 * exported for Grafana. Ownership follows monitor-scope.ts: a key's dashboards belong to its
 * account and mode and show that account's figures in that mode; the master key's show the whole
 * deployment, or an account it names. Anyone else is told a dashboard does not exist.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Principal } from '../auth/principal.js';
import type { KeyService } from '../auth/key-service.js';
import { randomId } from '../auth/key-format.js';
import type { Mode } from '../mode.js';
import type { Database } from '../storage/schema.js';
import { ApiError } from '../errors/catalogue.js';
import type { UsageMeter } from '../usage/usage-meter.js';
import { accountDailyUsage } from '../usage/usage.repository.js';
import { dayOf, startOfNextMonth } from '../usage/periods.js';
import { monitorScope } from './monitor-scope.js';
import type { AuditScope } from './audit-range.js';
import { hourlyRollups } from './usage-rollups.repository.js';
import { checkDefinition, meets, periodHours, type DashboardDefinition, type DashboardRequest } from './dashboard-definition.js';
import { metricValues, metricWindow, percent, UNITS, type MetricValues } from './dashboard-values.js';
import { grafanaDashboard } from './grafana-export.js';
import {
  deleteDashboard, findDashboard, insertDashboardWithin, listDashboards, replaceDashboard, type DashboardOwner, type DashboardRow,
} from './dashboards.repository.js';

export interface DashboardView extends DashboardDefinition {
  id: string;
  name: string;
  account_id: string | null;
  mode: Mode | null;
  created_at: string;
  updated_at: string;
}

export interface DashboardValues {
  computed_at: string;
  metrics: MetricValues[];
  alerts: { metric: string; condition: string; threshold: number; value: number | null; triggered: boolean }[];
}

export interface DashboardServiceOptions {
  /** Dashboards one owner may have. */
  maxPerOwner: number;
  /** The longest period, in days (AUDIT_ROLLUP_RETENTION_DAYS: older hours are gone). */
  maxPeriodDays: number;
}

export class DashboardService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly keys: KeyService,
    private readonly meter: UsageMeter,
    private readonly clock: Clock,
    private readonly options: DashboardServiceOptions,
  ) {}

  async create(actor: Principal, request: DashboardRequest): Promise<DashboardView> {
    const { scope, definition } = await this.resolve(actor, request);
    const now = this.clock.now();
    const { owner, ownerMode } = ownerOf(actor);
    const row: DashboardRow = {
      id: randomId('dsh'), owner, owner_mode: ownerMode, account_id: scope.accountId, mode: scope.mode,
      name: request.name, definition: JSON.stringify(definition), created_at: now, updated_at: now,
    };
    const stored = await insertDashboardWithin(this.db, row, this.options.maxPerOwner);
    if (!stored.inserted) {
      throw new ApiError('RESOURCE_LIMIT_REACHED', { resource: 'dashboards', limit: this.options.maxPerOwner, count: stored.count },
        `You already have ${stored.count} dashboards, the most one owner may have: delete one, or replace one with PUT.`);
    }
    return view(row);
  }

  async list(actor: Principal, limit: number, offset: number): Promise<{ items: DashboardView[]; total: number; limit: number; offset: number }> {
    const { rows, total } = await listDashboards(this.db, ownerOf(actor), limit, offset);
    return { items: rows.map(view), total, limit, offset };
  }

  /** The caller's dashboard with every metric and alert computed now. */
  async get(actor: Principal, id: string): Promise<DashboardView & { values: DashboardValues }> {
    const dashboard = view(await this.findOwn(actor, id));
    return { ...dashboard, values: await this.values(dashboard) };
  }

  async replace(actor: Principal, id: string, request: DashboardRequest): Promise<DashboardView> {
    const existing = await this.findOwn(actor, id);
    const { scope, definition } = await this.resolve(actor, request);
    const changes = { name: request.name, account_id: scope.accountId, mode: scope.mode, definition: JSON.stringify(definition), updated_at: this.clock.now() };
    if (!(await replaceDashboard(this.db, id, changes))) throw notFound(id);
    return view({ ...existing, ...changes });
  }

  async remove(actor: Principal, id: string): Promise<{ id: string; deleted: true }> {
    await this.findOwn(actor, id);
    if (!(await deleteDashboard(this.db, id))) throw notFound(id);
    return { id, deleted: true };
  }

  /** The caller's dashboard as an importable Grafana dashboard JSON model. */
  async grafana(actor: Principal, id: string): Promise<Record<string, unknown>> {
    const dashboard = view(await this.findOwn(actor, id));
    return grafanaDashboard({ id: dashboard.id, name: dashboard.name, accountId: dashboard.account_id, mode: dashboard.mode, metrics: dashboard.metrics, alerts: dashboard.alerts });
  }

  /** Whose figures a request asks for (monitor-scope.ts; an account the master key names must exist), and its checked definition. */
  private async resolve(actor: Principal, request: DashboardRequest): Promise<{ scope: { accountId: string | null; mode: Mode | null }; definition: DashboardDefinition }> {
    const scope = monitorScope(actor, { ...(request.account_id !== undefined ? { account_id: request.account_id } : {}), ...(request.mode ? { mode: request.mode } : {}) });
    if (actor.permissions.has('operator') && scope.accountId !== null) await this.keys.getAccount(scope.accountId);
    const definition = checkDefinition(request, { maxPeriodDays: this.options.maxPeriodDays, hasAccount: scope.accountId !== null });
    return { scope: { accountId: scope.accountId, mode: scope.mode as Mode | null }, definition };
  }

  private async findOwn(actor: Principal, id: string): Promise<DashboardRow> {
    const row = await findDashboard(this.db, id);
    const { owner, ownerMode } = ownerOf(actor);
    if (!row || row.owner !== owner || row.owner_mode !== ownerMode) throw notFound(id);
    return row;
  }

  private async values(dashboard: DashboardView): Promise<DashboardValues> {
    const now = this.clock.now();
    const scope: AuditScope = { accountId: dashboard.account_id, mode: dashboard.mode };
    // Every window ends with the current hour: one read of the longest covers them all.
    const longest = Math.max(0, ...dashboard.metrics.map((m) => (m.period ? periodHours(m.period)! : 0)));
    const hours = longest === 0 ? [] : await hourlyRollups(this.db, scope, metricWindow(`${longest}h`, now));
    const quota = dashboard.metrics.some((m) => m.type === 'usage_percentage') ? await this.quotaValues(scope, now) : undefined;
    const metrics = dashboard.metrics.map((metric) => (metric.type === 'usage_percentage' ? quota! : metricValues(metric, metricWindow(metric.period!, now), hours)));
    const alerts = dashboard.alerts.map((alert) => {
      const value = metrics.find((m) => m.type === alert.metric)?.current ?? null;
      return { metric: alert.metric, condition: alert.condition, threshold: alert.threshold, value, triggered: meets(value, alert.condition, alert.threshold) };
    });
    return { computed_at: now.toISOString(), metrics, alerts };
  }

  /**
   * usage_percentage: the quota month's requests over the plan's monthly limit, as GET /v1/usage
   * reports it in current_period; its series the share used by the end of each day of the month
   * so far, from the durable daily counts (which trail the live counter by up to a second).
   */
  private async quotaValues(scope: AuditScope, now: Date): Promise<MetricValues> {
    const accountId = scope.accountId!;
    const mode = (scope.mode ?? 'live') as Mode;
    const account = await this.keys.getAccount(accountId);
    const plan = this.keys.plans.get(account.plan);
    const limit = mode === 'test' ? plan.sandbox_monthly_limit : plan.monthly_limit;
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const [used, days] = await Promise.all([
      this.meter.monthUsage(accountId, mode),
      accountDailyUsage(this.db, accountId, mode, dayOf(start), dayOf(now)),
    ]);
    const byDay = new Map(days.map((d) => [d.day.getTime(), d.requests]));
    const series = [];
    let total = 0;
    for (let at = start.getTime(); at <= now.getTime(); at += 86_400_000) {
      total += byDay.get(at) ?? 0;
      series.push({ timestamp: new Date(at).toISOString(), value: limit === null ? null : percent(total, limit) });
    }
    return {
      type: 'usage_percentage',
      unit: UNITS.usage_percentage,
      start: start.toISOString(),
      end: startOfNextMonth(now).toISOString(),
      current: limit === null ? null : percent(used, limit),
      series,
    };
  }
}

function ownerOf(actor: Principal): DashboardOwner {
  return { owner: actor.accountId ?? 'master', ownerMode: actor.mode };
}

function notFound(id: string): ApiError {
  return new ApiError('NOT_FOUND', { resource: 'dashboard', id }, `No dashboard with id ${id}.`);
}

function view(row: DashboardRow): DashboardView {
  const definition = JSON.parse(row.definition) as DashboardDefinition;
  return {
    id: row.id,
    name: row.name,
    account_id: row.account_id,
    mode: row.mode as Mode | null,
    metrics: definition.metrics,
    alerts: definition.alerts,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
