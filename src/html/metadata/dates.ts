/**
 * Publication dates as ISO 8601. The rule, so that a client can tell what it got:
 * - a date with a time and a known offset → `YYYY-MM-DDTHH:mm:ss[.sss]±HH:MM` (`Z` for UTC),
 *   keeping the page's own offset rather than converting, since the local time is information;
 * - a date with a time but no offset → `YYYY-MM-DDTHH:mm:ss[.sss]` (a floating local time: we
 *   do not guess the zone);
 * - a date alone → `YYYY-MM-DD` (no invented midnight or zone).
 * Parsing is by explicit patterns (ISO 8601 and its common deviations, English month names,
 * RFC 2822, Unix timestamps), never by `Date.parse` guessing, whose results vary by engine.
 */

const MONTHS: Record<string, number> = {
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, oct: 10, nov: 11, dec: 12,
};
/** The zone abbreviations English-language pages actually print, with their offsets in minutes. */
const ZONES: Record<string, number> = {
  z: 0, ut: 0, utc: 0, gmt: 0, est: -300, edt: -240, cst: -360, cdt: -300, mst: -420, mdt: -360,
  pst: -480, pdt: -420, bst: 60, cet: 60, cest: 120, ist: 330, jst: 540, aest: 600, aedt: 660,
};

// 2024-05-17, 2024/05/17, 20240517, then optionally T or space, 10:30[:15[.123]], then a zone.
const ISO = /^(\d{4})([-/.]?)(\d{1,2})\2(\d{1,2})(?:(?:T\s*|\s+)(\d{1,2}):?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?|(?:UTC|GMT)(?:[+-]\d{1,2}(?::?\d{2})?)?)?$/i;
const TIME = /(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([ap]\.?m\.?)?/i;
const ZONE_WORD = /(?:^|\s)([+-]\d{2}:?\d{2}|[a-z]{1,4}(?:[+-]\d{1,2}(?::?\d{2})?)?)\s*$/i;

interface Parts {
  year: number;
  month: number;
  day: number;
  hour?: number;
  minute?: number;
  second?: number;
  millis?: string;
  /** Offset from UTC in minutes, when the source states it. */
  offset?: number;
}

/** The ISO 8601 form (see the rule above) of a date as pages write it, or null. */
export function parseDate(raw: string): string | null {
  const value = raw.replace(/\s+/g, ' ').trim();
  if (!value || value.length > 100) return null;
  const parts = /^\d{10}(?:\d{3})?$/.test(value) ? fromEpoch(Number(value)) : (fromIso(value) ?? fromWords(value));
  return parts && valid(parts) ? format(parts) : null;
}

/** A date written into the URL path (/2024/05/17/, /2024-05-17-slug), date-only, or null. */
export function dateFromUrl(url: string): string | null {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  const match = /\/((?:19|20)\d{2})([/-])(\d{1,2})\2(\d{1,2})(?=[/_.-]|$)/.exec(path);
  if (!match) return null;
  const parts = { year: Number(match[1]), month: Number(match[3]), day: Number(match[4]) };
  return valid(parts) ? format(parts) : null;
}

function fromEpoch(value: number): Parts {
  const date = new Date(value < 1e11 ? value * 1000 : value);
  return {
    year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(),
    hour: date.getUTCHours(), minute: date.getUTCMinutes(), second: date.getUTCSeconds(), offset: 0,
  };
}

function fromIso(value: string): Parts | null {
  const m = ISO.exec(value);
  if (!m) return null;
  // "20240517" needs all eight digits; "2024-5-7" may drop leading zeros.
  if (!m[2] && (m[3]!.length !== 2 || m[4]!.length !== 2)) return null;
  const parts: Parts = { year: Number(m[1]), month: Number(m[3]), day: Number(m[4]) };
  if (m[5] !== undefined) {
    parts.hour = Number(m[5]);
    parts.minute = Number(m[6]);
    parts.second = m[7] !== undefined ? Number(m[7]) : 0;
    if (m[8] !== undefined) parts.millis = m[8];
    if (m[9] !== undefined) parts.offset = zoneOffset(m[9]) ?? undefined;
  }
  return parts;
}

/** "May 17, 2024", "17 May 2024 10:30 PM EDT", "Fri, 17 May 2024 10:30:00 +0000". */
function fromWords(value: string): Parts | null {
  const lower = value.toLowerCase();
  const month = /\b(jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec)[a-z]*\.?/.exec(lower);
  const year = /\b((?:19|20)\d{2})\b/.exec(lower);
  if (!month || !year) return null;
  // The day is the one- or two-digit number beside the month name ("May 17", "17 May").
  const after = /^\s*(\d{1,2})(?:st|nd|rd|th)?\b(?!:)/.exec(lower.slice(month.index + month[0].length));
  const before = /\b(\d{1,2})(?:st|nd|rd|th)?\.?\s*(?:of\s+)?$/.exec(lower.slice(0, month.index));
  const day = after?.[1] ?? before?.[1];
  if (day === undefined) return null;
  const parts: Parts = { year: Number(year[1]), month: MONTHS[month[1]!]!, day: Number(day) };
  const time = TIME.exec(lower);
  if (time) {
    let hour = Number(time[1]);
    const meridiem = time[4]?.[0];
    if (meridiem && (hour < 1 || hour > 12)) return null;
    if (meridiem === 'p' && hour < 12) hour += 12;
    if (meridiem === 'a' && hour === 12) hour = 0;
    parts.hour = hour;
    parts.minute = Number(time[2]);
    parts.second = time[3] !== undefined ? Number(time[3]) : 0;
    // A zone is only trusted right after the time, at the end of the string.
    const zone = ZONE_WORD.exec(lower.slice(time.index + time[0].length));
    const offset = zone ? zoneOffset(zone[1]!) : null;
    if (offset !== null) parts.offset = offset;
  }
  return parts;
}

/** Minutes east of UTC for "Z", "+02", "+0200", "+02:00", "GMT+2", "EDT"; null when unknown. */
function zoneOffset(zone: string): number | null {
  const lower = zone.toLowerCase();
  const numeric = /^(?:utc|gmt)?([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(lower);
  if (numeric) {
    const minutes = Number(numeric[2]) * 60 + Number(numeric[3] ?? 0);
    return minutes <= 14 * 60 ? (numeric[1] === '-' ? -minutes : minutes) : null;
  }
  return ZONES[lower] ?? null;
}

function valid(p: Parts): boolean {
  if (p.year < 1900 || p.year > 2100 || p.month < 1 || p.month > 12 || p.day < 1) return false;
  if (p.day > new Date(Date.UTC(p.year, p.month, 0)).getUTCDate()) return false;
  if (p.hour === undefined) return true;
  return p.hour < 24 && p.minute! < 60 && p.second! < 60;
}

function format(p: Parts): string {
  const date = `${p.year}-${pad(p.month)}-${pad(p.day)}`;
  if (p.hour === undefined) return date;
  const millis = p.millis ? `.${p.millis.slice(0, 3).padEnd(3, '0')}` : '';
  const time = `${pad(p.hour)}:${pad(p.minute!)}:${pad(p.second!)}${millis}`;
  if (p.offset === undefined) return `${date}T${time}`;
  if (p.offset === 0) return `${date}T${time}Z`;
  const sign = p.offset < 0 ? '-' : '+';
  const abs = Math.abs(p.offset);
  return `${date}T${time}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
