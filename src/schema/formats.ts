/**
 * String formats the schemas in schemas/ use beyond JSON Schema's own, each with the noun an
 * error reason uses ("must be <noun>"), and readable forms of the schemas' patterns.
 */
import ipaddr from 'ipaddr.js';
import { isCountryCode } from './countries.js';

const HTTP_URL_START = /^https?:\/\/[^\s/?#]/i;
const BARE_DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/i;
const CIDR_PREFIX = /\/(?:0|[1-9]\d{0,2})$/;
const TIME_SPAN = /^[1-9]\d{0,5}[smhdw]$/;

/** Absolute http(s) URL with a host. The prefix test keeps out what WHATWG URL would repair ('http:x', ' http://x'). */
function isHttpUrl(s: string): boolean {
  if (!HTTP_URL_START.test(s) || /\s/.test(s)) return false;
  try {
    return new URL(s).hostname !== '';
  } catch {
    return false;
  }
}

/**
 * CIDR range. ipaddr.js alone would accept IPv4 shorthands ('10.1/8', '167772161/8') and IPv6 zone
 * ids, none of which belong in an allowlist, so IPv4 must be four decimal parts and '%' is refused.
 */
function isCidr(s: string): boolean {
  if (!CIDR_PREFIX.test(s) || s.includes('%')) return false;
  return ipaddr.IPv4.isValidCIDRFourPartDecimal(s) || ipaddr.IPv6.isValidCIDR(s);
}

const SPAN_UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function isTimeSpan(span: string): boolean {
  return TIME_SPAN.test(span);
}

/** Milliseconds of a value of the time-span format (30s, 5m, 24h, 7d, 2w). */
export function timeSpanMs(span: string): number {
  if (!isTimeSpan(span)) throw new RangeError(`not a time span: ${span}`);
  return Number(span.slice(0, -1)) * SPAN_UNIT_MS[span.slice(-1)]!;
}

export const CUSTOM_FORMATS: Readonly<Record<string, { validate: (s: string) => boolean; noun: string }>> = {
  'http-url': { validate: isHttpUrl, noun: 'an absolute http:// or https:// URL' },
  'url-or-domain': {
    validate: (s) => isHttpUrl(s) || BARE_DOMAIN.test(s),
    noun: 'an http(s) URL or a bare domain such as example.com',
  },
  'country-code': { validate: isCountryCode, noun: 'an ISO 3166-1 alpha-2 country code such as US' },
  cidr: { validate: isCidr, noun: 'a CIDR range such as 203.0.113.0/24 or 2001:db8::/32' },
  'time-span': { validate: isTimeSpan, noun: 'a duration such as 30s, 5m, 24h or 7d' },
};

/** Standard formats the schemas use, taken from ajv-formats. */
export const STANDARD_FORMATS = ['date-time', 'hostname', 'uri', 'email'] as const;

export const FORMAT_NOUNS: Readonly<Record<string, string>> = {
  'date-time': 'an ISO 8601 date-time such as 2025-01-31T12:00:00Z',
  hostname: 'a host name such as example.com',
  uri: 'a URI',
  email: 'an e-mail address such as ops@example.com',
  ...Object.fromEntries(Object.entries(CUSTOM_FORMATS).map(([name, f]) => [name, f.noun])),
};

/** Readable forms of the patterns the schemas use; others are quoted as they are. */
export const PATTERN_NOUNS: Readonly<Record<string, string>> = {
  '\\S': 'a non-blank string',
  '^[a-z][a-z0-9_]*$': 'a lower-case identifier (a-z, 0-9, _)',
  '^[a-z][a-z0-9_-]*$': 'a lower-case name (a-z, 0-9, _, -)',
  '^/': 'a path starting with /',
  // Ids the service hands out are printable ASCII, as the columns that hold them are.
  '^[!-~]+$': 'an id (printable ASCII, no spaces)',
};
