/**
 * Whose entries a monitoring read covers. A key sees its own account in its own mode (sandbox
 * traffic stays apart); the master key names an account and mode, or sees every entry of the
 * deployment, unattributed ones included (requests no key was accepted for).
 */
export interface AuditScope {
  /** null: every account, and entries of no account. */
  accountId: string | null;
  mode: string | null;
}

export interface TimeRange {
  start: Date;
  /** Exclusive. */
  end: Date;
}

/**
 * A range cut into the pieces each store answers exactly: the partial hours at its edges from
 * raw rows, whole hours from hourly rollups, and whole days (for client addresses) from the
 * daily sets. Every piece is half-open, and together they cover the range once.
 */
export interface RangeTiers {
  raw: TimeRange[];
  hours: TimeRange[];
  days: TimeRange[];
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const floorTo = (at: Date, unit: number) => new Date(Math.floor(at.getTime() / unit) * unit);
const ceilTo = (at: Date, unit: number) => new Date(Math.ceil(at.getTime() / unit) * unit);

function nonEmpty(ranges: TimeRange[]): TimeRange[] {
  return ranges.filter((r) => r.start < r.end);
}

/** Raw edges and whole hours: what totals are computed from. */
export function hourTiers(range: TimeRange): { raw: TimeRange[]; hours: TimeRange | undefined } {
  const h0 = ceilTo(range.start, HOUR_MS);
  const h1 = floorTo(range.end, HOUR_MS);
  if (h0 >= h1) return { raw: nonEmpty([range]), hours: undefined };
  return { raw: nonEmpty([{ start: range.start, end: h0 }, { start: h1, end: range.end }]), hours: { start: h0, end: h1 } };
}

/** Raw edges, whole hours outside whole days, and whole days: what distinct counts are computed from. */
export function dayTiers(range: TimeRange): RangeTiers {
  const { raw, hours } = hourTiers(range);
  if (!hours) return { raw, hours: [], days: [] };
  const d0 = ceilTo(hours.start, DAY_MS);
  const d1 = floorTo(hours.end, DAY_MS);
  if (d0 >= d1) return { raw, hours: [hours], days: [] };
  return {
    raw,
    hours: nonEmpty([{ start: hours.start, end: d0 }, { start: d1, end: hours.end }]),
    days: [{ start: d0, end: d1 }],
  };
}

export function floorHour(at: Date): Date {
  return floorTo(at, HOUR_MS);
}
