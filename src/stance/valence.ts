import { analyze } from '../text/analyze.js';
import { canonicalTerms } from './synonyms.js';

/**
 * Which way an effect goes for whoever has it. A direction word of amount ("reduces", "more")
 * says which way a thing moves; one of worth ("improves", "worsens", "harms") says whether that
 * is better or worse, whatever it is said of. The two meet when a claim says "Exercise improves
 * depression" and a paper finds "a reduction in depressive symptoms": less of a harm is better.
 * So where one side's direction word is of worth and the other's of amount, the amount's
 * direction is read as a worth by what it moves: turned when that is a harm (a disease, its
 * symptoms, death, a risk, pollution), as it stands otherwise ("improves insulin sensitivity"
 * against "increased insulin sensitivity"). English only, as the direction words are.
 */

/** Direction words of worth, with their inflections: better or worse for whoever has it, whatever it is said of. */
const WORTH = new Set([
  'improve', 'improves', 'improved', 'improving', 'improvements', 'better', 'beneficial', 'benefit', 'benefits', 'benefited',
  'worsen', 'worsens', 'worsened', 'worsening', 'worse', 'harm', 'harms', 'harmed', 'harmful', 'damage', 'damages', 'damaged',
  'damaging', 'impair', 'impairs', 'impaired', 'impairing', 'impairments', 'detrimental', 'poor', 'poorly', 'hurt', 'hurts',
  'unsafe', 'dangerous', 'toxic',
]);

/** Whether a direction word is one of worth rather than amount. */
export function ofWorth(word: string): boolean {
  return WORTH.has(word);
}

/**
 * Harms in general words and the commonest conditions by name (written from general knowledge,
 * not from any evaluation item): less of any of them is better.
 */
const HARMS = [
  'disease', 'illness', 'disorder', 'syndrome', 'symptom', 'death', 'die', 'mortality', 'morbidity', 'fatality', 'risk',
  'infection', 'pain', 'injury', 'incidence', 'severity', 'complication', 'adverse', 'toxicity', 'inflammation',
  'transmission', 'hospitalization', 'relapse', 'recurrence', 'failure', 'exacerbation', 'lesion', 'fracture', 'disability',
  'depression', 'depressive', 'anxiety', 'stress', 'fatigue', 'insomnia', 'obesity', 'cancer', 'tumor', 'malignancy',
  'metastasis', 'diabetes', 'asthma', 'dementia', 'stroke', 'hypertension', 'covid-19', 'virus', 'viral', 'caries', 'decay',
  'pollution', 'pollutant', 'emissions', 'contamination', 'poverty', 'unemployment', 'crime', 'violence', 'deforestation',
  'erosion', 'drought', 'flooding', 'waste', 'addiction', 'abuse', 'error', 'errors',
  // Conditions whose ending the stemmer cuts or that no ending tells (-osis is also "diagnosis").
  'cirrhosis', 'tuberculosis', 'fibrosis', 'sclerosis', 'thrombosis', 'osteoporosis', 'atherosclerosis', 'psoriasis',
  'malaria', 'measles', 'influenza', 'pneumonia', 'sepsis', 'hiv',
];
const HARM_TERMS = new Set(HARMS.flatMap((word) => canonicalTerms(analyze(word, 'en'), 'en')).filter((term) => !/^\d/u.test(term)));
/** Conditions by their ending: inflammations (-itis), tumors (-oma), blood conditions (-emia), diseases of an organ (-pathy) and pains (-algia), as analysed terms. */
const CONDITION = /(?:iti|itis|oma|emia|pathi|pathy|algia)$/u;
/** Words of those endings that name no condition. */
const NO_CONDITION = new Set(['sympathi', 'empathi', 'telepathi', 'homeopathi', 'stoma', 'aroma', 'diploma']);

/** Whether the analysed terms a direction word bears on name a harm. */
export function namesHarm(terms: ReadonlySet<string>): boolean {
  for (const term of terms) if (HARM_TERMS.has(term) || (CONDITION.test(term) && !NO_CONDITION.has(term))) return true;
  return false;
}
