import type { ContentSignals } from './content/signals.js';

/**
 * quality_score: how much to trust that the content returned is the page's main text, whole
 * and without furniture, in 0..1. Each factor is a number the extraction measured; the score is
 * their product, so one bad sign is enough to lower it:
 *  - length: little text is rarely a whole article (full credit from about 250 words);
 *  - prose: paragraphs of real sentences rather than labels and one-liners;
 *  - links: link text in the content means navigation or teaser lists slipped through;
 *  - clarity: a close call between separate parts of the page (a listing, an article beside a
 *    long teaser block) or markup hints that had to be overruled;
 *  - agreement: when the page declares its article body in JSON-LD, how much of it we have and
 *    how much of ours is in it (the closest thing to a reference a live page offers).
 * A headline found inside the content adds a little confidence. Empty content, or a handful of
 * words that are all links or hold no prose, scores 0: the extract then fails with "no main
 * content found". bench/extract/quality.ts ranks the score against measured F1 over the
 * main-content and whole-page extractions of the benchmark pages.
 */
export function qualityScore(signals: ContentSignals, clean: boolean): number {
  // Nothing, a few links, or a few words in which no prose was found (a page of navigation
  // only): no main content at all.
  const scraps = signals.words < 20 && (signals.linkDensity > 0.9 || (clean && signals.containerScore <= 0));
  if (signals.textChars === 0 || scraps) return 0;
  const length = Math.min(1, 0.35 + 0.65 * Math.sqrt(Math.min(signals.words, 250) / 250));
  const prose = Math.min(1, 0.7 + 0.1 * signals.paragraphs);
  const links = Math.max(0.2, 1 - 2 * Math.max(0, signals.linkDensity - 0.1));
  // Without cleaning (clean_html false) nothing was chosen: margin is 0, and the whole page,
  // furniture included, is rightly trusted less as the main text.
  const clarity = (0.6 + 0.4 * signals.margin) * (1 - 0.1 * signals.hintsOverruled);
  const agreement = signals.declaredCoverage === null || signals.declaredSupport === null
    ? 0.95
    : 0.5 + 0.5 * harmonic(signals.declaredCoverage, signals.declaredSupport);
  const headline = signals.headlineFound ? 1 : 0.95;
  return round2(length * prose * links * clarity * agreement * headline);
}

function harmonic(a: number, b: number): number {
  return a + b === 0 ? 0 : (2 * a * b) / (a + b);
}

function round2(value: number): number {
  return Math.round(Math.max(0, Math.min(1, value)) * 100) / 100;
}
