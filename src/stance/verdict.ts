/** How sentence stances make a claim's verdict (chosen on training claims by bench/validate/train-stance.ts). */
export interface VerdictThresholds {
  /** Below this, neither the best supporting nor the best contradicting sentence is enough: not enough information. */
  minimum: number;
  /** A contradiction wins when its probability times this reaches the best support's. */
  contradictionMargin: number;
}

export type ClaimVerdict = 'SUPPORT' | 'CONTRADICT' | 'NOT_ENOUGH_INFO';

/**
 * The verdict of a claim from its evidence sentences' stance probabilities (supports,
 * contradicts, neutral): the strongest sentence for each side decides, as one clear rationale
 * is what settles a claim. A side needs `minimum` to count; when both do, the margin decides;
 * when neither does, the evidence says nothing decisive.
 */
export function claimVerdict(sentences: readonly (readonly number[])[], thresholds: VerdictThresholds): ClaimVerdict {
  let support = 0;
  let contradiction = 0;
  for (const [s, c] of sentences) {
    support = Math.max(support, s!);
    contradiction = Math.max(contradiction, c!);
  }
  const supported = support >= thresholds.minimum;
  const contradicted = contradiction >= thresholds.minimum;
  if (supported && contradicted) return contradiction * thresholds.contradictionMargin >= support ? 'CONTRADICT' : 'SUPPORT';
  if (supported) return 'SUPPORT';
  return contradicted ? 'CONTRADICT' : 'NOT_ENOUGH_INFO';
}
