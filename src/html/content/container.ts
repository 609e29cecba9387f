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
  if (doubtful.value > 0 && doubtful.value >= HEALTHY_SHARE * reliable.value) return choice(stats, doubtful, 0);
  if (reliable.value > 0) return choice(stats, reliable, 1);
  const commentsOnly = rankContainers(stats, scores, Hint.Comments);
  if (commentsOnly.value > 0) return choice(stats, commentsOnly, 2);
  return choice(stats, rankContainers(stats, scores, Hint.Comments + 1), 3);
}

function choice(stats: TextStats, ranking: Ranking, hintsOverruled: number): Choice {
  const { best } = ranking;
  const ancestors = new Set<number>();
  for (let i = stats.parent[best]!; i >= 0; i = stats.parent[i]!) ancestors.add(i);
  const end = best + stats.size[best]!;
  let runnerUp = 0;
  for (let i = 0; i < ranking.containerValue.length; i++) {
    const inside = i >= best && i < end;
    if (!inside && !ancestors.has(i)) runnerUp = Math.max(runnerUp, ranking.containerValue[i]!);
  }
  return { index: best, value: ranking.value, runnerUp, hintsOverruled };
}
