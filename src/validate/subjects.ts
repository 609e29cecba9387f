/**
 * Publishers an operator would trust first in a subject (context.domain): standards bodies,
 * regulators and the journals of record. A source on one of them (or a subdomain) gets
 * authority SUBJECT_AUTHORITY for claims in that subject, and counts as a primary source.
 * The most specific listed domain decides; SEARCH_AUTHORITY, the operator's own list, comes
 * first, so it wins where both name the same domain.
 */
const SUBJECT_AUTHORITY = 0.9;

const SUBJECTS: Readonly<Record<string, readonly string[]>> = {
  medicine: ['who.int', 'nih.gov', 'cdc.gov', 'fda.gov', 'nhs.uk', 'ema.europa.eu', 'cochranelibrary.com', 'nejm.org', 'thelancet.com', 'bmj.com', 'jamanetwork.com'],
  finance: ['sec.gov', 'federalreserve.gov', 'ecb.europa.eu', 'bankofengland.co.uk', 'imf.org', 'worldbank.org', 'bis.org', 'oecd.org'],
  science: ['nature.com', 'science.org', 'cell.com', 'pnas.org', 'arxiv.org', 'nasa.gov', 'esa.int', 'noaa.gov'],
  law: ['supremecourt.gov', 'eur-lex.europa.eu', 'legislation.gov.uk', 'law.cornell.edu', 'curia.europa.eu'],
};

/** Other names clients use for the subjects above. */
const ALIASES: Readonly<Record<string, string>> = {
  health: 'medicine', medical: 'medicine', healthcare: 'medicine', biomedicine: 'medicine', 'public health': 'medicine',
  economics: 'finance', economy: 'finance', markets: 'finance',
  physics: 'science', biology: 'science', chemistry: 'science', astronomy: 'science', climate: 'science', space: 'science',
  legal: 'law', legislation: 'law',
};

/** The subject's trusted publishers as authority entries; none for a subject not listed. */
export function subjectAuthorities(subject: string | undefined): { domain: string; weight: number }[] {
  if (!subject) return [];
  const key = subject.trim().toLowerCase();
  return (SUBJECTS[ALIASES[key] ?? key] ?? []).map((domain) => ({ domain, weight: SUBJECT_AUTHORITY }));
}
