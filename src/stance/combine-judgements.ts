/**
 * The built-in stance model's judgement of a claim with a model judge's answers laid over it
 * (validation's optional LLM judge, docs/validation.md "The model judge"). The judge reads a
 * source's key passage and answers a label, its confidence and the words that decide it; the
 * rule that combines the two is deliberately simple:
 *
 *  - where the judge answered (validly: a known label, a confidence from 0 to 1, a quote found
 *    in the passage), its label is the source's stance, and the stance's probability is the
 *    mean of the judge's confidence and the built-in model's probability of that same label
 *    (support, contradiction, or for NOT_ENOUGH_INFO one minus the stronger of the two): the
 *    judge decides which way the source goes, and how sure the answer is rests on both, so one
 *    model alone cannot make a verdict very sure;
 *  - where it did not, the built-in model's judgement stands as it was;
 *  - the claim's verdict is then drawn as verdict.ts draws it, from the same sources (the first
 *    eligible originals) with their stances as combined.
 *
 * Without any judge answer the built-in judgement is returned unchanged.
 */
import type { JudgeClaimOutput, JudgedSource } from './judge-claim.js';
import { VERDICT_THRESHOLDS } from './model-weights.js';
import { claimVerdict, type ClaimVerdict } from './verdict.js';

/** What the judge answered about one source's key passage, once checked. */
export interface PassageJudgement {
  label: ClaimVerdict;
  /** 0..1 */
  confidence: number;
  /** The passage's own words that decide it (empty only for NOT_ENOUGH_INFO). */
  quote: string;
}

/** How much the judge's confidence weighs in a combined probability; the built-in model has the rest. */
export const JUDGE_WEIGHT = 0.5;

export type JudgedBy = 'llm' | 'builtin';

export interface CombinedSource extends JudgedSource {
  judgedBy: JudgedBy;
}

export interface CombinedJudgement extends Omit<JudgeClaimOutput, 'sources'> {
  sources: CombinedSource[];
}

/** `judgements` by source index; sources without one keep the built-in judgement. */
export function combineJudgements(builtin: JudgeClaimOutput, judgements: ReadonlyMap<number, PassageJudgement>): CombinedJudgement {
  const sources = builtin.sources.map((source, i): CombinedSource => {
    const judgement = judgements.get(i);
    return judgement && source.copyOf === null ? combined(source, judgement) : { ...source, judgedBy: 'builtin' };
  });
  if (!sources.some((s) => s.judgedBy === 'llm')) return { ...builtin, sources };
  const decisive = sources.filter((s) => s.decisive);
  // The sentences are no longer at hand, only each source's two best: each source counts as one
  // reading, and when both sides count claimVerdict pools the sources that clearly take a side.
  return {
    verdict: claimVerdict(decisive.map((s) => [s.verdictSupport, s.verdictContradiction]), VERDICT_THRESHOLDS),
    support: Math.max(0, ...decisive.map((s) => s.support)),
    contradiction: Math.max(0, ...decisive.map((s) => s.contradiction)),
    verdictSupport: Math.max(0, ...decisive.map((s) => s.verdictSupport)),
    verdictContradiction: Math.max(0, ...decisive.map((s) => s.verdictContradiction)),
    sources,
  };
}

function combined(source: JudgedSource, judgement: PassageJudgement): CombinedSource {
  const builtin = judgement.label === 'SUPPORT' ? source.support
    : judgement.label === 'CONTRADICT' ? source.contradiction
      : 1 - Math.max(source.support, source.contradiction);
  const probability = JUDGE_WEIGHT * judgement.confidence + (1 - JUDGE_WEIGHT) * builtin;
  const support = judgement.label === 'SUPPORT' ? probability : 0;
  const contradiction = judgement.label === 'CONTRADICT' ? probability : 0;
  return {
    ...source,
    stance: judgement.label === 'SUPPORT' ? 'supports' : judgement.label === 'CONTRADICT' ? 'contradicts' : 'neutral',
    confidence: probability,
    snippet: judgement.quote || source.snippet,
    support,
    contradiction,
    verdictSupport: support,
    verdictContradiction: contradiction,
    judgedBy: 'llm',
  };
}
