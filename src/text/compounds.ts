/**
 * Plausible parts of German compounds, so that a query word finds the compounds built from
 * it ("Finanzierung" and "Krankenhaus" find "Krankenhausfinanzierung").
 *
 * Without a dictionary, splitting is a guess, so the rule ranks the split points of a word
 * and keeps the best few:
 * - Only nouns (capitalised in the text: the caller decides) of MIN_COMPOUND or more letters,
 *   folded (a-z, ä, ö, ü), are split, at points
 *   leaving MIN_PART or more letters on each side, each side holding a vowel.
 * - A split point is ruled out when the right part cannot begin a German word (its leading
 *   consonants are not a German onset: "nz…", "sf…") or the left part ends in a letter no
 *   German word ends in (a consonant followed by "h", or "j", "q", "v", "w", "c").
 * - The rest are scored: +3 when the left part ends in a derivational suffix with its
 *   obligatory linking "s" ("-ungs", "-heits", "-keits", "-schafts", "-tions", "-täts"…:
 *   "Versicherungs|vertrag") or in "-ismus" ("Tourismus|branche"); +2 when the two letters across the point are consonants that
 *   seldom meet inside a German morpheme ("s|f", "n|h", "t|b"), which is how morpheme seams
 *   show; −2 when the right part starts with a vowel (most such points fall inside a syllable
 *   run like "finanz|ierung"); +1 for each part of five letters or more (short parts are
 *   mostly fragments).
 * - The MAX_SPLITS best points (ties: leftmost first) give their two parts, at most
 *   MAX_PARTS distinct ones. Linking elements ("Fugenelemente" -s, -es, -n, -en) stay on the
 *   left part here: the German Snowball stemmer strips exactly these endings ("arbeits" →
 *   "arbeit", "sonnen" → "sonn", "versicherungs" → "versicher"), so the stemmed part meets
 *   the stemmed standalone word.
 *
 * Precision trade-off: a wrong split adds a term that is usually not a word ("krankenhausfi")
 * and so matches nothing else; it costs index space, not ranking. A wrong split that is a
 * word ("Staub|ecken" for "Stau|becken") makes a document match a query it is not about,
 * diluted by BM25 since the part is one term among many. Parts of three letters ("Amt",
 * "Rat") are never emitted: they collide with fragments of too many other words.
 */
const MIN_COMPOUND = 10;
const MIN_PART = 4;
const MAX_SPLITS = 3;
const MAX_PARTS = 6;

const VOWELS = new Set(['a', 'e', 'i', 'o', 'u', 'y', 'ä', 'ö', 'ü']);
const LETTERS = /^[a-zäöü]+$/;

/**
 * Consonant clusters that begin German words. Onsets found almost only in loan words ("ch",
 * "sk", "sm", "ts"…) are left out: at a split point they are far more often a linking "s" or
 * the tail of "sch"/"tsch" than the start of a word ("Umwelt|schutz", not "Umwel|tschutz").
 */
const ONSETS = new Set(
  `b bl br d dr f fl fr g gl gn gr h j k kl kn kr l m n p pf pfl pfr ph pl pr qu r s sch schl schm schn schr
   schw sp spr st str t th tr v w wr z zw`.split(/\s+/),
);
/** Letters after which no German word ends (as the last letter after a consonant, "h" is only part of "ch", "sch", "th"). */
const NO_FINAL = new Set(['j', 'q', 'v', 'w', 'c']);
/** Endings that close a compound's first part: derivational suffixes with their linking "s", and "-ismus" (which takes none). */
const LINKED_SUFFIXES = ['ungs', 'heits', 'keits', 'schafts', 'tions', 'sions', 'täts', 'ings', 'lings', 'ums', 'ismus'];
/** Consonant pairs frequent inside German morphemes; other consonant pairs mostly sit on a seam. */
const MORPHEME_PAIRS = new Set(
  `bb bl br ch ck dd dl dr ff fl fr ft gg gl gn gr gt hl hm hn hr ht kk kl kn kr ks kt ll lb ld lf lg lk lm ln lp
   ls lt lz mb mm mp ms mt nd nf ng nk nn ns nt nz pf ph pl pp pr ps pt rb rc rd rf rg rk rl rm rn rp rr rs rt rz
   sc sk sl sm sn sp ss st sz th tl tr ts tt tz wr xt zt zz`.split(/\s+/),
);

function isVowel(letter: string | undefined): boolean {
  return letter !== undefined && VOWELS.has(letter);
}

function hasVowel(word: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (VOWELS.has(word[i]!)) return true;
  return false;
}

/** Whether `word` from `at` starts like a German word: with a vowel or a known onset. */
function startsWithOnset(word: string, at: number): boolean {
  let end = at;
  while (end < word.length && !isVowel(word[end])) end++;
  return end === at || ONSETS.has(word.slice(at, end));
}

function endsLikeWord(left: string): boolean {
  const last = left[left.length - 1]!;
  if (NO_FINAL.has(last)) return false;
  const before = left[left.length - 2];
  return !(last === 'h' && !isVowel(before) && before !== 'c' && before !== 't');
}

function score(word: string, at: number): number {
  const left = word.slice(0, at);
  let points = 0;
  if (LINKED_SUFFIXES.some((suffix) => left.endsWith(suffix))) points += 3;
  const a = word[at - 1];
  const b = word[at];
  if (!isVowel(a) && !isVowel(b) && !MORPHEME_PAIRS.has(`${a}${b}`)) points += 2;
  if (isVowel(b)) points -= 2;
  if (at >= 5) points += 1;
  if (word.length - at >= 5) points += 1;
  return points;
}

/** The plausible parts (unstemmed) of a folded German word; empty for short or non-alphabetic words. */
export function compoundParts(word: string): string[] {
  if (word.length < MIN_COMPOUND || !LETTERS.test(word)) return [];
  const candidates: Array<{ at: number; points: number }> = [];
  for (let at = MIN_PART; at <= word.length - MIN_PART; at++) {
    if (!hasVowel(word, 0, at) || !hasVowel(word, at, word.length)) continue;
    if (!startsWithOnset(word, at) || !endsLikeWord(word.slice(0, at))) continue;
    candidates.push({ at, points: score(word, at) });
  }
  // Array.prototype.sort is stable: equal scores keep the leftmost split first.
  candidates.sort((x, y) => y.points - x.points);
  const parts: string[] = [];
  for (const { at } of candidates.slice(0, MAX_SPLITS)) {
    for (const part of [word.slice(0, at), word.slice(at)]) {
      if (parts.length < MAX_PARTS && !parts.includes(part)) parts.push(part);
    }
  }
  return parts;
}
