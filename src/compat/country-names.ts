/**
 * Country names as Tavily takes them ("united states", "germany") to ISO 3166-1 alpha-2 codes,
 * from the English region names ICU gives every assigned code, compared lower-case.
 */
import { ISO_COUNTRIES, isCountryCode } from '../schema/countries.js';

let byName: Map<string, string> | undefined;

function names(): Map<string, string> {
  if (byName) return byName;
  const display = new Intl.DisplayNames(['en'], { type: 'region' });
  byName = new Map();
  for (const code of ISO_COUNTRIES) {
    const name = display.of(code);
    if (name && name !== code) byName.set(name.toLowerCase(), code);
  }
  return byName;
}

/** The alpha-2 code of a country named in English or given as a code; undefined when unknown. */
export function countryCode(nameOrCode: string): string | undefined {
  const value = nameOrCode.trim();
  if (isCountryCode(value)) return value.toUpperCase();
  return names().get(value.toLowerCase().replace(/\s+/g, ' '));
}
