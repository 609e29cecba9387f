/**
 * Dates from outside (documents sent for indexing, the publication dates of fetched pages, a
 * key's expiry) on their way to a DATETIME column. MySQL and MariaDB hold DATETIME from 1000-01-01 00:00:00 to
 * 9999-12-31 23:59:59, and this service writes it in UTC (connection.ts): an instant outside
 * that range fails the whole statement it is in, a batch of documents with it. So such dates are
 * parsed here, strictly, and anything outside the range is refused before it reaches MySQL.
 */

const DATETIME_MIN = Date.UTC(1000, 0, 1);
const DATETIME_MAX = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Whether a DATETIME column holds `date`. */
export function isStorableDate(date: Date): boolean {
  const time = date.getTime();
  return time >= DATETIME_MIN && time <= DATETIME_MAX;
}

/** The latest instant a DATETIME column holds, as an error reason says it. */
export const LATEST_STORABLE_DATE = new Date(DATETIME_MAX).toISOString();

/** What parseStorableDate accepts, as an error reason says it. */
export const STORABLE_DATE = 'an ISO 8601 date (2025-01-31) or date-time (2025-01-31T12:00:00Z) from 1000-01-01 to 9999-12-31';

// 2025-01-31, then optionally T (or one space) and 12:00[:00[.123]] with optionally Z, ±HH:MM, ±HHMM or ±HH.
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * The instant an ISO 8601 date or date-time names, or null when it is not one (Date.parse's
 * guesses, such as "x 10000" read as the year 10000, are not taken) or falls outside what
 * DATETIME holds. A date alone is midnight UTC; a time without an offset is read as UTC, whatever
 * the server's time zone.
 */
export function parseStorableDate(value: string): Date | null {
  const match = ISO_8601.exec(value.trim());
  if (!match) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match.slice(1, 7).map((part) => Number(part ?? 0));
  // Date.UTC maps the years 0 to 99 to 1900 to 1999: those are outside the range anyway.
  if (year! < 1000 || month! < 1 || month! > 12 || day! < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const millis = Number((match[7] ?? '').slice(0, 3).padEnd(3, '0'));
  const local = Date.UTC(year!, month! - 1, day!, hour, minute, second, millis);
  // A day past the month's end (2025-02-30) would roll over into the next month.
  if (new Date(local).getUTCDate() !== day) return null;
  const offset = offsetMinutes(match[8]);
  if (offset === null) return null;
  const instant = new Date(local - offset * 60_000);
  return isStorableDate(instant) ? instant : null;
}

/** Minutes east of UTC of "Z", "+02", "+0200" or "+02:00" (0 without a zone), or null when out of range. */
function offsetMinutes(zone: string | undefined): number | null {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(3).replace(':', '') || 0);
  if (hours > 23 || minutes > 59) return null;
  return (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
}
