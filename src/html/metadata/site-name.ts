import { comparable, plainText } from './text.js';
import { split } from './title.js';

/** Host labels that name no site ("www.", "m.", "co.uk"). */
const GENERIC_HOST_LABEL = /^(?:www\d?|m|amp|mobile|co|com|org|net|gov|edu|ac)$/;
/** Three-letter labels ("bbc", "cnn") turn up inside unrelated words; containment needs four. */
const MIN_LABEL = 4;

/**
 * The site's name: the first of og:site_name, JSON-LD publisher, JSON-LD WebSite name and
 * application-name that is given. A name carrying a slogan ("Aktuálně.cz - Víte, co se právě
 * děje") is cut to the segment naming the host, when one does.
 */
export function pickSiteName(candidates: ReadonlyArray<string | null>, url: string): string | null {
  const raw = candidates.find((candidate) => candidate !== null && plainText(candidate) !== '');
  if (!raw) return null;
  const name = plainText(raw);
  const { parts } = split(name);
  if (parts.length < 2) return name;
  const labels = hostNames(url).slice(1).map(comparable).filter((label) => label.length >= MIN_LABEL);
  return parts.find((part) => labels.some((label) => comparable(part).includes(label)))?.trim() ?? name;
}

/** The host and its distinctive labels ("www.theverge.com" → "www.theverge.com", "theverge"): sites put them in titles. */
export function hostNames(url: string): string[] {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return [];
  }
  const labels = host.split('.').slice(0, -1).filter((label) => label.length >= 3 && !GENERIC_HOST_LABEL.test(label));
  return [host, ...labels];
}
