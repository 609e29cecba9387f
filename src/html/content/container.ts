import { Hint } from './hints.js';
import { rankContainers, type Ranking, type Scores } from './scoring.js';
import type { TextStats } from './text-stats.js';

/**
 * Picks the main-content container. Reliable hints are always believed; doubtful ones only
 * while the ranking that believes them keeps a fair share (HEALTHY_SHARE) of the value found
 * without them, else they are taken to sit on the article's own wrappers ("Page-ad-margins",
 * "hs_cos_wrapper_meta_field"). When even reliable hints leave nothing of value, only
 * comment hints are kept, then none.
 */
export interface Choice {
  /** Index of the container in the text stats. */
  index: number;
  /** Its value in the ranking that chose it. */
  value: number;
  /** Value of the best container that neither contains nor lies inside the chosen one (≤ 0 when none). */
  runnerUp: number;
  /** 0 all hints believed, 1 doubtful hints ignored, 2 only comment hints kept, 3 no hints. */
  hintsOverruled: number;
}

/** Below this share of the value found without doubtful hints, believing them is taken to have lost the article. */
const HEALTHY_SHARE = 0.3;

export function chooseContainer(stats: TextStats, scores: Scores): Choice {
  const reliable = rankContainers(stats, scores, Hint.Boilerplate);
  const doubtful = rankContainers(stats, scores, Hint.MaybeBoilerplate);
  if (doubtful.value > 0 && doubtful.value >= HEALTHY_SHARE * reliable.value) return choice(stats, scores, doubtful, Hint.MaybeBoilerplate, 0);
  if (reliable.value > 0) return choice(stats, scores, reliable, Hint.Boilerplate, 1);
  const commentsOnly = rankContainers(stats, scores, Hint.Comments);
  if (commentsOnly.value > 0) return choice(stats, scores, commentsOnly, Hint.Comments, 2);
  return choice(stats, scores, rankContainers(stats, scores, Hint.Comments + 1), Hint.Comments + 1, 3);
}

/**
 * A thread's posts, a question's answers, a page split in repeated sections: when the best
 * container's markup (its tag and first class) recurs in other parts of the page that hold prose
 * and are not hinted away, each of them is one item of the content, which is then their nearest
 * common ancestor, provided that ancestor keeps REPEAT_SHARE of the best one's value (what it
 * gathers besides the items does not outweigh them). Per-item furniture (profiles, vote counts,
 * signatures) costs every item something, so one item alone would otherwise outrank them all.
 */
const REPEAT_SHARE = 0.5;

function widenToRepeats(stats: TextStats, scores: Scores, ranking: Ranking, excludeFrom: number): number {
  const { best } = ranking;
  const element = stats.elements[best]!;
  const first = element.attribs.class?.trim().split(/\s+/)[0];
  if (!first) return best;
  const hinted = (i: number): boolean => {
    for (let a = i; a >= 0; a = stats.parent[a]!) if (scores.hint[a]! >= excludeFrom) return true;
    return false;
  };
  let common = best;
  let items = 1;
  for (let i = 0; i < stats.elements.length; i++) {
    const other = stats.elements[i]!;
    if (i === best || other.name !== element.name || scores.proseChars[i]! <= 0) continue;
    if (other.attribs.class?.trim().split(/\s+/)[0] !== first || hinted(i)) continue;
    items++;
    common = commonAncestor(stats, common, i);
  }
  if (items < 2 || common === best || ranking.containerValue[common]! < REPEAT_SHARE * ranking.value) return best;
  return common;
}

function commonAncestor(stats: TextStats, a: number, b: number): number {
  const ancestors = new Set<number>();
  for (let i = a; i >= 0; i = stats.parent[i]!) ancestors.add(i);
  for (let i = b; i >= 0; i = stats.parent[i]!) if (ancestors.has(i)) return i;
  return 0;
}

function choice(stats: TextStats, scores: Scores, ranking: Ranking, excludeFrom: number, hintsOverruled: number): Choice {
  const best = widenToRepeats(stats, scores, ranking, excludeFrom);
  const ancestors = new Set<number>();
  for (let i = stats.parent[best]!; i >= 0; i = stats.parent[i]!) ancestors.add(i);
  const end = best + stats.size[best]!;
  let runnerUp = 0;
  for (let i = 0; i < ranking.containerValue.length; i++) {
    const inside = i >= best && i < end;
    if (!inside && !ancestors.has(i)) runnerUp = Math.max(runnerUp, ranking.containerValue[i]!);
  }
  return { index: best, value: ranking.containerValue[best]!, runnerUp, hintsOverruled };
}
