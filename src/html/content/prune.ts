import type { Element } from 'domhandler';
import { BLOCK_TAGS } from './block-tags.js';
import { Hint } from './hints.js';
import type { Scores } from './scoring.js';
import type { TextStats } from './text-stats.js';

/**
 * What to leave out of the chosen container: the boilerplate pages nest inside their article
 * (share bars, bylines, related links, newsletter boxes, captions, ads), the part above the
 * headline, and everything never shown (scripts, hidden elements).
 *
 * The rules come in three strengths. When the full set would leave less than KEEP_SHARE of
 * the container's prose, the container is itself made of what the rules remove (a listing
 * page is a teaser list, a link roundup a link list), and a milder set is used.
 */
const enum Strength {
  /** Hinted parts, teaser lists, link lists, the part above the headline. */
  Full,
  /** Hinted parts and the part above the headline. */
  HintsOnly,
  /** Comments only. */
  Minimal,
}

/** A hinted part holding at least this share of the container's prose is the article's own wrapper. */
const WRAPPER_SHARE = 0.5;
/** Linked headlines that make a part a teaser list (related stories, "more from"). */
const TEASER_HEADLINES = 2;
/** Share of the container's prose that pruning must keep to be believed. */
const KEEP_SHARE = 0.3;
/**
 * Text outside links (characters) below which a link-dense block is a link list. With more,
 * it is sentences around their links (a news roundup, "10 things you need to know").
 */
const LINK_LIST_OWN_TEXT = 40;
/**
 * Share of a container's text inside links from which the container is a link collection (a
 * roundup, a newsletter, an annotated list of tools): its link lists are what it is made of, not
 * furniture. News articles link well under a fifth of their text; roundups half of it.
 */
const LINK_RICH = 0.35;

/** Whether the container is made of links (LINK_RICH): then link lists and link-dense paragraphs are its content. */
export function isLinkRich(stats: TextStats, container: number): boolean {
  const chars = stats.chars[container]!;
  return chars > 0 && stats.linkChars[container]! >= LINK_RICH * chars;
}

export function boilerplateFilter(stats: TextStats, scores: Scores, container: number, headline: number): (element: Element) => boolean {
  const leading = beforeHeadline(stats, scores, container, headline);
  const containerProse = scores.proseChars[container]!;
  let pruned = rules(stats, scores, container, leading, Strength.Full);
  for (const milder of [Strength.HintsOnly, Strength.Minimal]) {
    if (keptProse(stats, scores, container, pruned) >= KEEP_SHARE * containerProse) break;
    pruned = rules(stats, scores, container, leading, milder);
  }
  return (element) => {
    const i = stats.index.get(element);
    return i === undefined || pruned(i);
  };
}

function rules(stats: TextStats, scores: Scores, container: number, leading: Set<number>, strength: Strength): (i: number) => boolean {
  const containerProse = scores.proseChars[container]!;
  const linkRich = isLinkRich(stats, container);
  return (i) => {
    if (i === container) return false;
    const hint = scores.hint[i]!;
    if (hint === Hint.Comments) return true;
    if (strength === Strength.Minimal) return false;
    if (leading.has(i)) return true;
    // Hinted parts go, unless they hold most of the container's prose: then the hint is
    // layout vocabulary on the article's own wrapper.
    const minor = scores.proseChars[i]! < WRAPPER_SHARE * containerProse;
    if (hint >= Hint.MaybeBoilerplate && minor) return true;
    if (strength === Strength.HintsOnly) return false;
    if (scores.teasers[i]! >= TEASER_HEADLINES && minor) return true;
    if (linkRich) return false;
    // Link lists (menus, related links, tag clouds); a link inside a paragraph belongs to it.
    const chars = stats.chars[i]!;
    const linkChars = stats.linkChars[i]!;
    return BLOCK_TAGS.has(stats.elements[i]!.name) && linkChars > 0.5 * chars && chars - linkChars < LINK_LIST_OWN_TEXT;
  };
}

/** Prose characters of the container left after pruning (pruned subtrees skipped whole). */
function keptProse(stats: TextStats, scores: Scores, container: number, pruned: (i: number) => boolean): number {
  let kept = 0;
  const end = container + stats.size[container]!;
  for (let i = container; i < end; i++) {
    if (pruned(i)) i += stats.size[i]! - 1;
    else if (scores.textValue[i]! > 0) kept += stats.inlineChars[i]!;
  }
  return kept;
}

/**
 * The headline inside the container and the elements preceding it: what a page shows above
 * its article (tickers, banners, breadcrumbs). The part above is kept when it reads like the
 * article itself (a fair share of the container's prose, few links): then the matching
 * heading is rather a repetition of the title further down (a recipe card, a summary box).
 */
function beforeHeadline(stats: TextStats, scores: Scores, container: number, headline: number): Set<number> {
  if (headline <= container) return new Set();
  const ancestors = new Set<number>();
  for (let i = stats.parent[headline]!; i !== container; i = stats.parent[i]!) ancestors.add(i);
  const cut = new Set<number>();
  let prose = 0;
  let chars = 0;
  let linkChars = 0;
  for (let i = container + 1; i < headline; i++) {
    if (ancestors.has(i)) continue;
    if (!cut.has(stats.parent[i]!)) {
      prose += scores.proseChars[i]!;
      chars += stats.chars[i]!;
      linkChars += stats.linkChars[i]!;
    }
    cut.add(i);
  }
  cut.add(headline);
  const articleLike = prose >= 0.3 * scores.proseChars[container]! && linkChars < 0.15 * chars;
  return articleLike ? new Set([headline]) : cut;
}
