/**
 * One validation, as a worker runs it: the claim's evidence gathered (gather-evidence.ts), every
 * sentence of it judged in the pool (src/stance), the key passages judged again by the model
 * judge when one is configured (llm-judge.ts, combined by src/stance/combine-judgements.ts), and
 * the judgement turned into the labels of section 2.3 (labels.ts). The request's deadline bounds the gathering: sources not
 * read by then make the validation fail with VALIDATION_TIMEOUT and say how far it got.
 */
import { ApiError } from '../errors/catalogue.js';
import type { Mode } from '../mode.js';
import { gatherEvidence, sourcesToCheck, type EvidenceDeps } from './gather-evidence.js';
import { authorityScore } from './authority.js';
import { isPrimarySource } from './primary.js';
import { subjectAuthorities } from './subjects.js';
import { resultLabels } from './labels.js';
import type { EvidenceItem, ValidateJob, ValidationResult } from './types.js';
import { insufficientSources } from '../page/read-failure.js';
import type { SourceCandidate } from '../ranking/rank-sources.js';
import type { JudgeClaimOutput } from '../stance/judge-claim.js';
import { combineJudgements, type PassageJudgement } from '../stance/combine-judgements.js';
import { commonWording } from '../stance/wordings.js';
import type { StanceJudge } from './llm-judge.js';

export interface ValidateDeps extends EvidenceDeps {
  /** The model judge, when VALIDATION_JUDGE is llm. */
  judge?: StanceJudge | undefined;
}

/** With context.time_sensitive, evidence published longer ago than this is outdated. */
const OUTDATED_AFTER_MS = 365 * 24 * 60 * 60 * 1000;

/** Kept from the deadline for answering once the model judge has been asked. */
const ANSWER_MARGIN_MS = 250;

/** Kept from the time limit for judging once gathering is cut off (at most 2 s). */
const RESERVE_SHARE = 0.25;
const MAX_RESERVE_MS = 2000;

export async function runValidation(deps: ValidateDeps, mode: Mode, job: ValidateJob): Promise<ValidationResult> {
  const started = Date.now();
  const { request } = job;
  const requested = sourcesToCheck(request);
  if (started >= job.deadline) throw new ApiError('VALIDATION_TIMEOUT', { sources_checked: 0, sources_pending: requested });
  const reserve = Math.min(MAX_RESERVE_MS, request.options.timeout * 1000 * RESERVE_SHARE);
  const gathering = AbortSignal.timeout(Math.max(0, Math.floor(job.deadline - reserve - started)));

  // The stance model reads the claim in one wording (wordings.ts: "heart attack" as "myocardial
  // infarction"): the index weighs the terms of both.
  const reading = commonWording(request.claim, null);
  const [weights, evidence] = await Promise.all([
    deps.index.queryWeights(mode, reading === request.claim ? request.claim : `${request.claim} ${reading}`),
    gatherEvidence(deps, mode, request, gathering),
  ]);
  const readableAt = evidence.sources.map((_, i) => i).filter((i) => evidence.sources[i]!.passages.length > 0);
  const readable = readableAt.map((i) => evidence.sources[i]!);
  if (evidence.cut > 0) throw new ApiError('VALIDATION_TIMEOUT', { sources_checked: requested - evidence.cut, sources_pending: evidence.cut });
  if (readable.length === 0) throw insufficientSources(evidence.failed, 'No source about the claim was found.');

  // The operator's list first, then the publishers trusted in the claim's subject.
  const authorities = [...deps.config.search.authority, ...subjectAuthorities(deps.config.validate.subjects, request.context?.domain)];
  const primary = readable.map((s) => isPrimarySource(request.claim, s, authorities));
  const requirePrimary = request.options.require_primary_sources;
  const timeSensitive = request.context?.time_sensitive === true;
  const outdated = readable.map((s) => timeSensitive && s.publishedAt !== null && started - s.publishedAt > OUTDATED_AFTER_MS);
  const allowed = readable.map((_, i) => !requirePrimary || primary[i]!);
  // When time matters, recent evidence decides; outdated evidence only when there is nothing newer.
  const recent = allowed.map((ok, i) => ok && !outdated[i]);
  const eligible = recent.some(Boolean) ? recent : allowed;
  const builtin = await deps.pool.run('judgeClaim', {
    claim: request.claim,
    language: weights.language ?? pagesLanguage(readable),
    termWeights: weights.termWeights,
    sources: readable.map((s) => ({ passages: s.passages.map((p) => p.text) })),
    eligible,
    rankings: readableAt.map((i) => evidence.rankings[i]!),
    statistical: request.context?.claim_type === 'statistical',
    precedence: originalPrecedence(readable, primary),
  });
  // An opinion gets no verdict: its claim and passages are not sent anywhere for one.
  const consulted = !deps.judge ? undefined
    : request.context?.claim_type === 'opinion' ? { judgements: new Map<number, PassageJudgement>(), outcomes: [] }
      : await consultJudge(deps.judge, request.claim, readable, builtin, job.deadline);
  const judged = combineJudgements(builtin, consulted?.judgements ?? new Map());
  const evidenceItems: ValidationResult['evidence'] = { supporting: [], contradicting: [], neutral: [] };
  const merged: ValidationResult['metadata']['sources_merged'] = [];
  judged.sources.forEach((source, i) => {
    const candidate = readable[i]!;
    // A copy of another source's text counts once: under the original.
    if (source.copyOf !== null) {
      merged.push({ source: candidate.url, copy_of: readable[source.copyOf]!.url });
      return;
    }
    const item: EvidenceItem = {
      source: candidate.url,
      confidence: round(source.confidence),
      authority_score: round(authorityScore(candidate, authorities)),
      snippet: source.snippet,
      primary: primary[i]!,
      judged_by: source.judgedBy,
      ...(candidate.publishedAt !== null ? { published_date: new Date(candidate.publishedAt).toISOString() } : {}),
      ...(timeSensitive ? { outdated: outdated[i]! } : {}),
    };
    const bucket = source.stance === 'supports' ? 'supporting' : source.stance === 'contradicts' ? 'contradicting' : 'neutral';
    evidenceItems[bucket].push(item);
  });
  for (const items of Object.values(evidenceItems)) items.sort((a, b) => b.confidence - a.confidence);
  return {
    ...resultLabels(judged, evidenceItems, request, requirePrimary && !primary.some(Boolean)),
    evidence: evidenceItems,
    metadata: {
      sources_checked: readable.length + evidence.failed.length, sources_failed: evidence.failed, sources_merged: merged, query_time: (Date.now() - started) / 1000,
      ...(evidence.upstream ? { upstream_engine: evidence.upstream } : {}),
      ...(consulted ? { judge: { passages: consulted.outcomes } } : {}),
    },
  };
}

/**
 * The model judge asked about the claim's key passages: the passage holding each source's key
 * sentence, for at most JUDGE_MAX_PASSAGES sources (copies left out), those the verdict is
 * drawn from first, then the others, each group by its evidence's confidence (as the evidence
 * lists are sorted). All are asked at once, until ANSWER_MARGIN_MS before the deadline.
 */
async function consultJudge(judge: StanceJudge, claim: string, readable: readonly SourceCandidate[], builtin: JudgeClaimOutput, deadline: number) {
  const chosen = builtin.sources.map((source, i) => ({ source, i }))
    .filter(({ source }) => source.copyOf === null && source.passage >= 0)
    .sort((a, b) => Number(b.source.decisive) - Number(a.source.decisive) || b.source.confidence - a.source.confidence || a.i - b.i)
    .slice(0, judge.maxPassages)
    .map(({ source, i }) => ({ i, passage: readable[i]!.passages[source.passage]!.text }));
  const signal = AbortSignal.timeout(Math.max(0, Math.floor(deadline - ANSWER_MARGIN_MS - Date.now())));
  const verdicts = await judge.judge(claim, chosen.map((c) => c.passage), signal);
  const judgements = new Map<number, PassageJudgement>();
  verdicts.forEach((verdict, k) => {
    if (verdict.outcome === 'answered') judgements.set(chosen[k]!.i, verdict.judgement);
  });
  return { judgements, outcomes: verdicts.map((verdict, k) => ({ source: readable[chosen[k]!.i]!.url, outcome: verdict.outcome })) };
}

/**
 * The language most of the pages read live were in, or null. Without an index to say (an empty
 * one), the claim is analysed in its sources' language, which judgeClaim detects on their text;
 * a short passage is too little text for that, but its page still says (lang="en", or a longer
 * text around it), and an unstemmed claim never meets "lowered" in a page that says "lowers".
 */
function pagesLanguage(sources: readonly SourceCandidate[]): string | null {
  const counts = new Map<string, number>();
  for (const { language } of sources) if (language) counts.set(language, (counts.get(language) ?? 0) + 1);
  let best: string | null = null;
  for (const [language, n] of counts) if (best === null || n > counts.get(best)!) best = language;
  return best;
}

/**
 * Which of several copies of one text is taken for its original: a primary source before
 * others, then the one published first (undated ones last), then the one found first.
 */
function originalPrecedence(sources: readonly SourceCandidate[], primary: readonly boolean[]): number[] {
  const order = sources.map((_, i) => i).sort((a, b) => Number(primary[b]) - Number(primary[a])
    || (sources[a]!.publishedAt ?? Infinity) - (sources[b]!.publishedAt ?? Infinity) || a - b);
  const precedence: number[] = [];
  order.forEach((source, rank) => { precedence[source] = rank; });
  return precedence;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
