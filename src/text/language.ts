import { trigramScorer } from './trigram-scores.js';

/**
 * The page's language as an ISO 639-1 code (ISO 639-3 where no two-letter code exists), from
 * what the markup claims and what the text is.
 *
 * - The text's script decides first where it is unambiguous: Hangul → ko; Han with kana → ja;
 *   Han alone → zh; Hebrew → he; Greek → el; Thai → th. Other scripts (Latin, Cyrillic,
 *   Arabic, Devanagari) go to franc-min's trigram model, on the first 2,000 characters only
 *   and limited to the languages of TEXT_LANGUAGES, whose small models otherwise win on
 *   short samples. (Latin filler text, "lorem ipsum", comes out as a Romance language: franc
 *   scores its best candidates as closely as it scores Portuguese against Spanish or
 *   Indonesian against Malay in real text, so no threshold tells them apart.)
 * - Markup and text are combined: the markup is kept when it agrees with the text, when the
 *   text is too short to judge, or when it names another language of the same script that
 *   the text does not clearly rule out (a page marked "pt" whose text franc finds a little
 *   closer to Spanish is Portuguese). The text wins when the markup's language is written in
 *   another script than the text's, or when a long text clearly scores it lower.
 */

const SAMPLE = 2000;
/** Fewer letters than this say nothing reliable about the language (franc needs trigrams). */
const MIN_LETTERS = 40;
/** Han, kana and Hangul carry a word or more each: a short run already identifies the language. */
const MIN_CJK = 10;
/** A same-script markup language is overruled only by this much text … */
const OVERRULE_LETTERS = 300;
/**
 * … on which franc scores the markup's language at most this. franc's scores are relative
 * (the best is 1) and bunch up on long samples: on the benchmark pages' 2,000-character samples
 * English text scores French 0.97–0.989, Spanish text Portuguese 0.977–0.982, Portuguese text
 * Spanish 0.988, and less related languages lower. So a page marked "fr" whose text is English
 * is corrected nearly always, one marked "es" whose text franc finds Portuguese-leaning is not.
 */
const OVERRULE_SCORE = 0.985;

/** franc-min's ISO 639-3 codes and the ISO 639-1 codes we answer with. */
const TEXT_LANGUAGES: Record<string, string> = {
  eng: 'en', spa: 'es', fra: 'fr', deu: 'de', por: 'pt', ita: 'it', nld: 'nl', ces: 'cs', pol: 'pl',
  swe: 'sv', tur: 'tr', ron: 'ro', hun: 'hu', hrv: 'hr', bos: 'bs', ind: 'id', vie: 'vi', zlm: 'ms',
  tgl: 'tl', swh: 'sw', rus: 'ru', ukr: 'uk', bel: 'be', bul: 'bg', srp: 'sr', kaz: 'kk', uzn: 'uz',
  azj: 'az', arb: 'ar', pes: 'fa', urd: 'ur', pbu: 'ps', hin: 'hi', mar: 'mr', npi: 'ne',
};
/** francAll limited to TEXT_LANGUAGES, its models read once (trigram-scores.ts). */
const francAll = trigramScorer(Object.keys(TEXT_LANGUAGES));
/** Three-letter and deprecated codes that markup uses for languages with a two-letter code. */
const MARKUP_ALIASES: Record<string, string> = {
  ...TEXT_LANGUAGES, jpn: 'ja', zho: 'zh', chi: 'zh', cmn: 'zh', kor: 'ko', heb: 'he', ell: 'el', gre: 'el',
  fre: 'fr', ger: 'de', cze: 'cs', dut: 'nl', per: 'fa', rum: 'ro', ara: 'ar', tha: 'th',
  iw: 'he', in: 'id', ji: 'yi', jw: 'jv',
};

type Script = 'latin' | 'cyrillic' | 'arabic' | 'hebrew' | 'greek' | 'thai' | 'devanagari' | 'han' | 'kana' | 'hangul';
const SCRIPTS: Array<[Script, RegExp]> = [
  ['latin', /\p{Script=Latin}/u],
  ['han', /\p{Script=Han}/u],
  ['kana', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['hangul', /\p{Script=Hangul}/u],
  ['cyrillic', /\p{Script=Cyrillic}/u],
  ['arabic', /\p{Script=Arabic}/u],
  ['hebrew', /\p{Script=Hebrew}/u],
  ['greek', /\p{Script=Greek}/u],
  ['thai', /\p{Script=Thai}/u],
  ['devanagari', /\p{Script=Devanagari}/u],
];
/** The script each language we may answer is written in, to tell when markup and text cannot both be right. */
const LANGUAGE_SCRIPT: Record<string, Script> = {
  ja: 'kana', zh: 'han', ko: 'hangul', he: 'hebrew', yi: 'hebrew', el: 'greek', th: 'thai',
  ru: 'cyrillic', uk: 'cyrillic', be: 'cyrillic', bg: 'cyrillic', mk: 'cyrillic', kk: 'cyrillic', mn: 'cyrillic',
  ar: 'arabic', fa: 'arabic', ur: 'arabic', ps: 'arabic', hi: 'devanagari', mr: 'devanagari', ne: 'devanagari',
};
const LATIN_LANGUAGES = new Set(['en', 'es', 'fr', 'de', 'pt', 'it', 'nl', 'cs', 'pl', 'sv', 'tr', 'ro', 'hu', 'hr', 'id', 'vi', 'ms', 'tl', 'sw', 'da', 'no', 'nb', 'nn', 'fi', 'sk', 'sl', 'et', 'lv', 'lt', 'ca', 'eu', 'gl', 'ga', 'cy', 'is', 'sq', 'af', 'uz', 'az']);

/** The primary language of a markup value ("en-US", "en_GB", "pt-BR, en", "eng"), or null. */
export function normalizeLanguageTag(value: string | null | undefined): string | null {
  const first = value?.trim().split(/[\s,;]+/)[0]?.toLowerCase();
  if (!first || !/^[a-z]{2,3}(?:[-_][a-z0-9]{1,8})*$/.test(first)) return null;
  const primary = first.split(/[-_]/)[0]!;
  // "und", "mul", "zxx" and the like say the language is unknown or not a language.
  if (primary === 'und' || primary === 'mul' || primary === 'zxx' || primary === 'mis') return null;
  return MARKUP_ALIASES[primary] ?? primary;
}

export function detectLanguage(text: string, markupHint: string | null): string | null {
  const hint = normalizeLanguageTag(markupHint);
  const verdict = textLanguage(text.slice(0, SAMPLE));
  if (!verdict) return hint;
  if (!hint || hint === verdict.language) return verdict.language;
  const hintScript = LANGUAGE_SCRIPT[hint] ?? (LATIN_LANGUAGES.has(hint) ? 'latin' : null);
  // Japanese is written in Han and kana; a kana-less sample of a page marked "ja" is too short to overrule it.
  if (hint === 'ja' && verdict.script === 'han') return verdict.letters >= 100 ? verdict.language : hint;
  if (hintScript !== null && hintScript !== verdict.script) return verdict.language;
  // A language the text model does not know (Danish, Catalan …) cannot be ruled out by it.
  const hintScore = verdict.scoreOf(hint);
  const overrules = verdict.letters >= OVERRULE_LETTERS && hintScore !== null && hintScore <= OVERRULE_SCORE;
  return overrules ? verdict.language : hint;
}

interface TextVerdict {
  language: string;
  script: Script;
  /** Letters of the deciding script in the sample. */
  letters: number;
  /** franc's score (0..1, best 1) for another language; null when franc cannot judge it. */
  scoreOf(language: string): number | null;
}

function textLanguage(sample: string): TextVerdict | null {
  const counts = countScripts(sample);
  const cjk = counts.han + counts.kana + counts.hangul;
  let top: Script = 'latin';
  for (const [script] of SCRIPTS) if (counts[script] > counts[top]) top = script;
  const total = SCRIPTS.reduce((sum, [script]) => sum + counts[script], 0);
  const unscored = (language: string, script: Script, letters: number): TextVerdict => ({ language, script, letters, scoreOf: () => null });

  // Each CJK character weighs like a word, so CJK decides once it is a fair share of the letters.
  if (cjk >= MIN_CJK && cjk * 3 >= total) {
    if (counts.hangul >= counts.han + counts.kana) return unscored('ko', 'hangul', cjk);
    // Japanese text mixes Han with kana; Chinese has none, whatever quotes it carries.
    if (counts.kana * 10 >= counts.han + counts.kana) return unscored('ja', 'kana', cjk);
    return unscored('zh', 'han', cjk);
  }
  if (counts[top] < MIN_LETTERS) return null;
  if (top === 'hebrew') return unscored('he', top, counts[top]); // franc-min has no Hebrew model
  if (top === 'greek') return unscored('el', top, counts[top]);
  if (top === 'thai') return unscored('th', top, counts[top]);
  const scores = francAll(sample);
  const best = scores[0];
  const language = best ? TEXT_LANGUAGES[best[0]] : undefined;
  if (!language) return null;
  return {
    language,
    script: top,
    letters: counts[top],
    scoreOf: (other) => scores.find(([code]) => TEXT_LANGUAGES[code] === other)?.[1] ?? null,
  };
}

function countScripts(sample: string): Record<Script, number> {
  const counts: Record<Script, number> = { latin: 0, cyrillic: 0, arabic: 0, hebrew: 0, greek: 0, thai: 0, devanagari: 0, han: 0, kana: 0, hangul: 0 };
  for (const char of sample) {
    if (char.charCodeAt(0) < 0x41) continue; // spaces, digits and ASCII punctuation: most characters, no script
    for (const [script, pattern] of SCRIPTS) {
      if (pattern.test(char)) {
        counts[script]++;
        break;
      }
    }
  }
  return counts;
}
