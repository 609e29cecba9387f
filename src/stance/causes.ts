/**
 * What a text says causes what: "Y is (mainly) caused by X", "Y is driven by X", "X causes Y",
 * "the main cause of Y is X", "X is the main cause of Y". Encyclopedia sentences answer claims
 * about causes this way ("Most stomach ulcers are caused by infection with Helicobacter
 * pylori"), and a claim that names another cause ("…are caused by stress") differs from them
 * only in a common noun, where no negation, direction or name tells them apart. English only.
 */
export interface CauseStatement {
  /** The words naming what is caused, from its clause's start. */
  effect: string;
  /** The words naming the cause, to the clause's end. */
  cause: string;
}

const DEGREE = '(?:(?:mainly|mostly|largely|primarily|chiefly|predominantly|principally|usually|often|generally|typically)\\s+)?';
/** "Y is (mainly) caused by X": the passive, and verbs of driving and spreading said the same way ("spread through water"). */
const PASSIVE = new RegExp(`^(.*?)\\b(?:is|are|was|were|be|been|being)\\s+${DEGREE}(?:caused|driven|triggered|spread|transmitted)\\s+${DEGREE}(?:by|through|via)\\s+(.+)$`);
/** "X (mainly) causes Y" (not "the cause of", a noun). */
const ACTIVE = new RegExp(`^(.*?)\\s+${DEGREE}(?:causes|cause|caused|drives|drive|drove)\\s+(?!of\\b)(.+)$`);
/** Words that end a noun phrase's start, not a subject: "the [cause]", "a major [driver]". */
const NOT_SUBJECT_END = new Set(['the', 'a', 'an', 'main', 'primary', 'leading', 'chief', 'principal', 'dominant', 'major', 'biggest', 'root', 'common']);
/** "The main cause of Y is X". */
const MAIN_CAUSE = /^(?:the\s+)?(?:main|primary|leading|chief|principal|dominant|major|biggest)\s+(?:cause|driver|source)\s+of\s+(.+?)\s+(?:is|are|was|were)\s+(.+)$/;
/** "X is the main cause of Y", "X is a cause of Y". */
const IS_CAUSE = /^(.+?)\s+(?:is|are|was|were)\s+(?:the|a|an|one\s+of\s+the)\s+(?:(?:main|primary|leading|chief|principal|dominant|major|biggest|root|common)\s+)?(?:cause|causes|driver|drivers)\s+of\s+(.+)$/;
/** Where a clause ends: a comma, semicolon, colon or dash, or the sentence's end. */
const CLAUSE_END = /[,;:–—(]|\.(?:\s|$)/;

/** The cause statements of a lower-cased text, one per clause that makes one. */
export function causeStatements(lower: string): CauseStatement[] {
  const statements: CauseStatement[] = [];
  for (const clause of lower.split(/[;:]|\.(?:\s|$)/)) {
    const text = clause.trim();
    const main = MAIN_CAUSE.exec(text);
    const named = main ? null : IS_CAUSE.exec(text);
    const passive = PASSIVE.exec(text);
    const matched = ACTIVE.exec(text);
    // "the [cause]", "a major [driver]": a noun, no active statement.
    const active = matched && !NOT_SUBJECT_END.has(matched[1]!.split(/\s+/).pop()!) ? matched : null;
    const [effect, cause] = main ? [main[1]!, main[2]!] : named ? [named[2]!, named[1]!] : passive ? [passive[1]!, passive[2]!] : active ? [active[2]!, active[1]!] : [];
    if (effect === undefined || cause === undefined) continue;
    // The effect from the clause's last break before it; the cause up to the next one.
    const effectWords = effect.split(/[,–—(]/).pop()!.trim();
    const causeWords = cause.split(CLAUSE_END)[0]!.trim();
    if (effectWords.length > 0 && causeWords.length > 0) statements.push({ effect: effectWords, cause: causeWords });
  }
  return statements;
}
