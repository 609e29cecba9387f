/**
 * Publishers an operator would trust first in a subject (context.domain): standards bodies,
 * regulators and the journals of record. A source on one of them (or a subdomain) gets the
 * subject's authority (0.9 unless set) for claims in that subject, and counts as a primary
 * source. The most specific listed domain decides; SEARCH_AUTHORITY, the operator's own list,
 * comes first, so it wins where both name the same domain.
 *
 * VALIDATE_SUBJECTS_FILE adds subjects and replaces built-in ones of the same name (JSON, see
 * parseSubjects); the built-in lists below are a starting point, not a judgement to keep.
 */
import { isRecord } from '../json-record.js';

export interface Subject {
  /** Publishers' domains, each covering its subdomains. */
  readonly domains: readonly string[];
  /** Other names clients use for the subject ("health" for medicine). */
  readonly aliases: readonly string[];
  /** Authority the subject's publishers get, 0..1. */
  readonly authority: number;
}

export type Subjects = Readonly<Record<string, Subject>>;

const SUBJECT_AUTHORITY = 0.9;

export const BUILT_IN_SUBJECTS: Subjects = {
  medicine: {
    domains: ['who.int', 'nih.gov', 'cdc.gov', 'fda.gov', 'nhs.uk', 'ema.europa.eu', 'cochranelibrary.com', 'nejm.org', 'thelancet.com', 'bmj.com', 'jamanetwork.com'],
    aliases: ['health', 'medical', 'healthcare', 'biomedicine', 'public health'],
    authority: SUBJECT_AUTHORITY,
  },
  finance: {
    domains: ['sec.gov', 'federalreserve.gov', 'ecb.europa.eu', 'bankofengland.co.uk', 'imf.org', 'worldbank.org', 'bis.org', 'oecd.org'],
    aliases: ['economics', 'economy', 'markets'],
    authority: SUBJECT_AUTHORITY,
  },
  science: {
    domains: ['nature.com', 'science.org', 'cell.com', 'pnas.org', 'arxiv.org', 'nasa.gov', 'esa.int', 'noaa.gov'],
    aliases: ['physics', 'biology', 'chemistry', 'astronomy', 'climate', 'space'],
    authority: SUBJECT_AUTHORITY,
  },
  law: {
    domains: ['supremecourt.gov', 'eur-lex.europa.eu', 'legislation.gov.uk', 'law.cornell.edu', 'curia.europa.eu'],
    aliases: ['legal', 'legislation'],
    authority: SUBJECT_AUTHORITY,
  },
};

/** The subject's trusted publishers as authority entries; none for a subject not listed. */
export function subjectAuthorities(subjects: Subjects, subject: string | undefined): { domain: string; weight: number }[] {
  if (!subject) return [];
  const key = subject.trim().toLowerCase();
  const found = subjects[key] ?? Object.values(subjects).find((s) => s.aliases.includes(key));
  return (found?.domains ?? []).map((domain) => ({ domain, weight: found!.authority }));
}

const DOMAIN = /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/;

/**
 * The built-in subjects with those of a VALIDATE_SUBJECTS_FILE laid over them: a JSON object
 * from subject name to `{ "domains": [...], "aliases": [...], "authority": 0.9 }` (aliases and
 * authority optional); a subject named like a built-in one replaces it, and one with no
 * domains removes it. Names, aliases and domains are matched in lower case. Throws an Error
 * saying what is wrong.
 */
export function parseSubjects(json: string): Subjects {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new Error(`is not valid JSON: ${(error as Error).message}`);
  }
  if (!isRecord(value)) throw new Error('must be a JSON object from subject name to { domains, aliases, authority }');
  const subjects: Record<string, Subject> = { ...BUILT_IN_SUBJECTS };
  for (const [rawName, entry] of Object.entries(value)) {
    const name = rawName.trim().toLowerCase();
    if (!name) throw new Error('has an empty subject name');
    if (!isRecord(entry)) throw new Error(`subject "${rawName}" must be an object with domains`);
    const domains = stringList(entry.domains, `subject "${rawName}": domains`).map((d) => d.toLowerCase().replace(/\.$/, ''));
    const bad = domains.find((d) => !DOMAIN.test(d));
    if (bad !== undefined) throw new Error(`subject "${rawName}": "${bad}" is not a domain such as who.int`);
    const aliases = entry.aliases === undefined ? [] : stringList(entry.aliases, `subject "${rawName}": aliases`).map((a) => a.trim().toLowerCase());
    const authority = entry.authority ?? SUBJECT_AUTHORITY;
    if (typeof authority !== 'number' || !(authority >= 0 && authority <= 1)) throw new Error(`subject "${rawName}": authority must be a number from 0 to 1`);
    if (domains.length === 0) delete subjects[name];
    else subjects[name] = { domains, aliases, authority };
  }
  return subjects;
}

function stringList(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new Error(`${what} must be an array of strings`);
  return value;
}
