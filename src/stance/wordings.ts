/**
 * One wording for things English says in several: a plain name and its field's term ("heart
 * attack" and "myocardial infarction", "high blood pressure" and "hypertension", "CO2" and
 * "carbon dioxide"), British and American spellings ("anaemia" and "anemia", "randomised" and
 * "randomized", which the stemmer keeps apart), and a thing's absence ("lack of iodine" and
 * "iodine deficiency"). A popular claim judged against a paper's sentence often shares none of
 * its key words with it otherwise, and reads as about something else. The claim and every
 * sentence are read in this wording (judge-claim.ts); the evidence quoted keeps the source's own
 * words.
 *
 * Synonyms of one word each are synonyms.ts's; these are phrases, or words whose stems differ,
 * rewritten in the text before it is read, so that every reading (terms, names, direction words:
 * the "high" of "high blood pressure" is no direction once it says "hypertension") agrees.
 * Written from general knowledge of medicine, climate and spelling for this model, not from any
 * evaluation item. Each set's first form is the one the others become: a single word where there
 * is one, else the technical term; an abbreviation becomes what it stands for. An abbreviation
 * is read only as written, in capitals: "Gerd" is a name, "GERD" reflux disease.
 */
const SETS: readonly (readonly string[])[] = [
  ['hypertension', 'high blood pressure'],
  ['hypotension', 'low blood pressure'],
  ['hyperglycemia', 'high blood sugar', 'high blood glucose'],
  ['hypoglycemia', 'low blood sugar', 'low blood glucose'],
  ['hypercholesterolemia', 'high cholesterol', 'high blood cholesterol'],
  ['blood glucose', 'blood sugar'],
  ['myocardial infarction', 'myocardial infarctions', 'heart attack', 'heart attacks'],
  ['stroke', 'strokes', 'cerebrovascular accident', 'cerebrovascular accidents'],
  ['dental caries', 'tooth decay'],
  ['otitis media', 'ear infection', 'ear infections', 'middle ear infection', 'middle ear infections'],
  ['pharyngitis', 'sore throat', 'sore throats'],
  ['dyspepsia', 'indigestion'],
  ['pruritus', 'itching', 'itchiness'],
  ['syncope', 'fainting'],
  ['emesis', 'vomiting'],
  ['epistaxis', 'nosebleed', 'nosebleeds'],
  ['dyspnea', 'dyspnoea', 'shortness of breath', 'breathlessness'],
  ['pyrexia', 'fever'],
  ['alopecia', 'hair loss'],
  ['osteoporosis', 'brittle bones'],
  ['insomnia', 'sleeplessness'],
  ['periodontitis', 'gum disease', 'periodontal disease'],
  ['influenza', 'flu'],
  ['pertussis', 'whooping cough'],
  ['varicella', 'chickenpox', 'chicken pox'],
  ['shingles', 'herpes zoster'],
  ['rubella', 'german measles'],
  ['tetanus', 'lockjaw'],
  ['myopia', 'nearsightedness', 'near-sightedness', 'shortsightedness', 'short-sightedness'],
  ['hyperopia', 'farsightedness', 'far-sightedness', 'longsightedness', 'long-sightedness'],
  ['conjunctivitis', 'pink eye'],
  ['allergic rhinitis', 'hay fever'],
  ['nephrolithiasis', 'kidney stone', 'kidney stones', 'renal calculus', 'renal calculi'],
  ['gastroesophageal reflux', 'acid reflux', 'GERD', 'GORD'],
  ['sudden infant death syndrome', 'sudden infant death', 'SIDS', 'cot death', 'crib death'],
  ['acetaminophen', 'paracetamol'],
  ['aspirin', 'acetylsalicylic acid'],
  ['vitamin C', 'ascorbic acid'],
  ['vitamin B12', 'cobalamin', 'cyanocobalamin'],
  ['vitamin D', 'cholecalciferol'],
  ['folate', 'folic acid'],
  ['colorectal cancer', 'bowel cancer'],
  ['hospitalization', 'hospital admission', 'hospital admissions'],
  ['postoperative', 'after surgery'],
  ['covid-19', 'covid', 'sars-cov-2', '2019-ncov', 'coronavirus disease 2019'],
  ['carbon dioxide', 'CO2', 'CO₂'],
  ['methane', 'CH4', 'CH₄'],
  ['nitrous oxide', 'N2O', 'N₂O'],
  ['greenhouse gas', 'GHG'],
  ['greenhouse gases', 'GHGs'],
];

/** British spellings by their stem, and the American one each becomes. */
const SPELLINGS: readonly [RegExp, string][] = [
  // Medical words: ae and oe in Greek and Latin stems ("anaemia", "oesophagus", "foetal", "haemorrhage").
  [/^(an|leuk|isch|hyperglyc|hypoglyc|septic|tox)aem/u, '$1em'],
  [/^haem/u, 'hem'],
  [/^oesoph/u, 'esoph'],
  [/^oestr/u, 'estr'],
  [/^oedem/u, 'edem'],
  [/^foet/u, 'fet'],
  [/^faec/u, 'fec'],
  [/^paediatr/u, 'pediatr'],
  [/^orthopaed/u, 'orthoped'],
  [/^(an)aesth/u, '$1esth'],
  [/^gynaec/u, 'gynec'],
  [/^coeliac$/u, 'celiac'],
  [/^diarrhoea/u, 'diarrhea'],
  [/^caesarean/u, 'cesarean'],
  // -our for -or in the words that have it.
  [/^(col|behavi|fav|hon|lab|neighb|hum|od|vap|flav|harb|rum|vig|tum|rig|endeav|arm)our(s|ed|ing|ite|ites|able|ably|ful|less)?$/u, '$1or$2'],
  // -ise for -ize in the verbs that have both (a list: "exercise", "rise" and "promise" have no -ize).
  [/^(random|minim|maxim|character|recogn|organ|real|util|immun|hospital|standard|optim|summar|emphas|stabil|mobil|visual|normal|neutral|metabol|steril|special|critic|author|categor|prior|stigmat|legal|colon|industrial|urban|global|central|commercial|fertil|modern|personal|social|symbol|final|general|jeopard|memor|polar|popular|public|rational|sympath|hypothes|apolog|synthes|vapor)is(e|ed|es|ing|ation|ations|er|ers)$/u, '$1iz$2'],
  [/^analys(e|ed|es|ing)$/u, 'analyz$1'],
];

/** An abbreviation as written: capitals and digits, with a plural s ("GHGs"). */
const ABBREVIATION = /^[\p{Lu}\p{N}₂₄]+s?$/u;

const canonicalOf = new Map<string, string>();
for (const set of SETS) for (const form of set) canonicalOf.set(ABBREVIATION.test(form) ? form : form.toLowerCase(), set[0]!);

/** The forms as one pattern, longest first so that "heart attacks" wins over "heart attack"; not inside a hyphenated word ("varicella-zoster"). */
function alternation(forms: readonly string[], flags: string): RegExp {
  const escaped = [...forms].sort((a, b) => b.length - a.length).map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+'));
  return new RegExp(`(?<![\\p{L}\\p{N}-])(?:${escaped.join('|')})(?![\\p{L}\\p{N}-])`, flags);
}
const PHRASES = alternation([...canonicalOf.keys()].filter((form) => !ABBREVIATION.test(form)), 'giu');
const ABBREVIATIONS = alternation([...canonicalOf.keys()].filter((form) => ABBREVIATION.test(form)), 'gu');
/** Words that may be spelt the British way: only these are tried against SPELLINGS. */
const RESPELLABLE = /\p{L}*(?:ae|oe)\p{L}*|\p{L}+(?:our(?:s|ed|ing|ites?|able|ably|ful|less)?|is(?:e|ed|es|ing|ations?|ers?)|ys(?:e|ed|es|ing))(?!\p{L})/gu;

/**
 * The form of a set a matched phrase becomes, capitalised as the match opened (a sentence's first
 * word stays one); an abbreviation's never is, since a capitalised word inside a sentence reads
 * as a name ("levels of CO2" is no "levels of Carbon dioxide").
 */
function replacePhrase(match: string): string {
  const abbreviation = canonicalOf.get(match);
  if (abbreviation !== undefined) return abbreviation;
  const canonical = canonicalOf.get(match.toLowerCase().replace(/\s+/g, ' '))!;
  return /^\p{Lu}/u.test(match) && /^\p{Ll}/u.test(canonical) ? canonical[0]!.toUpperCase() + canonical.slice(1) : canonical;
}

function respell(word: string): string {
  const lower = word.toLowerCase();
  for (const [pattern, replacement] of SPELLINGS) {
    if (!pattern.test(lower)) continue;
    const spelt = lower.replace(pattern, replacement);
    return word[0] === lower[0] ? spelt : spelt[0]!.toUpperCase() + spelt.slice(1);
  }
  return word;
}

/**
 * A thing's absence named as a condition, in the one form "deficiency": "lack of iodine",
 * "absence of predators", "a shortage of rainfall", "raised without gut bacteria" and "mice
 * lacking leptin" say what "iodine deficiency" and "leptin-deficient mice" say. Read as written,
 * the first were negations and the second a direction word, so "Lack of vitamin D causes rickets"
 * contradicted "Vitamin D deficiency causes rickets". Left as written, and read as negations: the
 * absence of a finding ("a lack of association", "without side effects", "an absence of any
 * benefit"), which denies it; of an action ("without affecting survival"); the verb ("penguins
 * lack feathers"); "is lacking"; and "with or without".
 */
const ABSENCE = /(?<![\p{L}\p{N}-])(?:lack|absence|shortage)\s+of(?=((?:\s+[\p{L}\p{N}'’-]+){1,3}))/giu;
const WITHOUT = /(?<![\p{L}\p{N}-])(?<!\bwith\s+or\s+)without(?=((?:\s+[\p{L}\p{N}'’-]+){1,3}))/giu;
const LACKING = /(?<![\p{L}\p{N}-])(?<!(?:^|[^\p{L}])(?:is|are|was|were|be|been|being|remains?|remained|still|not)\s+)lacking(?=\s+[\p{L}\p{N}])/giu;
/** What a study finds or a reader is given (within three words of the absence): its absence denies it. */
const FINDINGS = /^(?:evidence|data|proof|support|associations?|effects?|efficacy|effectiveness|benefits?|correlations?|links?|relationships?|differences?|changes?|improvements?|response|significance|consensus|agreement|impact|influence|information|knowledge|studies|research|trials?)$/iu;

/** "deficiency of" for an absence named as a condition, given the three words after it; else the absence as written. */
function absence(match: string, following: string): string {
  const words = following.trim().split(/\s+/);
  if (words.some((word) => FINDINGS.test(word)) || /ing$/iu.test(words[0]!)) return match;
  return /^\p{Lu}/u.test(match) ? 'Deficiency of' : 'deficiency of';
}

/**
 * A treatment found no better than nothing, in the one form "not effective": "no more effective
 * than placebo", "no better than sham acupuncture", "not superior to usual care", "no more
 * effective than a placebo drink in preventing" (a word after the placebo named with it). Read as
 * written, "more" and "better" were directions turned by "no", said of the treatment, and what it
 * was tried on ("in relieving knee pain") stood beyond their reach, so the sentence read as
 * support for "relieves knee pain"; "not effective in relieving" turns the relief itself.
 */
const NO_BETTER_THAN_NOTHING = /(?<![\p{L}\p{N}-])(?:no|not)\s+(?:more\s+(?:effective|efficacious)|better|superior)\s+(?:than|to)\s+(?:an?\s+|the\s+)?(?:(?:placebo|sham)(?:\s+[\p{L}-]+)?(?=\s+(?:in|at|for|on|after|over|during|among)\s|\s*[,.;:)]|\s*$)|(?:placebo|sham|(?:usual|standard)\s+care|no\s+treatment|controls?)(?![\p{L}\p{N}-]))/giu;

/**
 * A group named by what its people never did, in one word: "never smokers" and "never-smokers"
 * are nonsmokers, a group compared with smokers ("smokers had a higher risk than never
 * smokers"), and the "never" before them negates nothing the sentence states.
 */
const NEVER_DOERS = /(?<![\p{L}\p{N}-])never[\s-]+(smokers?|drinkers?|users?|vapers?)(?![\p{L}\p{N}-])/giu;

/** `text` in one wording for the things it names (English; another language's text is returned as it is). */
export function commonWording(text: string, language: string | null): string {
  if (language !== null && language !== 'en') return text;
  return text.replace(ABBREVIATIONS, replacePhrase).replace(PHRASES, replacePhrase).replace(RESPELLABLE, respell)
    .replace(ABSENCE, absence).replace(WITHOUT, absence).replace(LACKING, (match) => (/^\p{Lu}/u.test(match) ? 'Deficient in' : 'deficient in'))
    .replace(NO_BETTER_THAN_NOTHING, (match) => (/^\p{Lu}/u.test(match) ? 'Not effective' : 'not effective'))
    .replace(NEVER_DOERS, (match, doers: string) => `${/^\p{Lu}/u.test(match) ? 'N' : 'n'}on${doers.toLowerCase()}`);
}
