import { analyze } from '../text/analyze.js';

/**
 * A small hand-written list of general English synonyms (no field's jargon), so that a claim's
 * term is found in a passage that says it in another common word ("large" for "big", "begin"
 * for "start", "physician" for "doctor"). Written from general knowledge for this model, not
 * from any evaluation item. Direction words (increase / rise …) are not here: cues.ts reads them
 * with their sign, and a claim's direction is matched by sign, not by word.
 */
const SETS: readonly (readonly string[])[] = [
  ['big', 'large', 'huge'],
  ['small', 'little', 'tiny'],
  ['begin', 'start', 'commence'],
  ['end', 'finish', 'cease'],
  ['doctor', 'physician'],
  ['illness', 'disease', 'sickness', 'disorder'],
  ['child', 'kid', 'children', 'kids'],
  ['people', 'person', 'human', 'individual'],
  ['adult', 'grownup'],
  ['die', 'death', 'dead', 'mortality', 'fatal', 'deadly'],
  ['kill', 'killing'],
  ['buy', 'purchase'],
  ['need', 'require', 'requirement'],
  ['show', 'demonstrate', 'reveal', 'indicate'],
  ['help', 'aid', 'assist'],
  ['use', 'utilize', 'usage', 'employ'],
  ['fast', 'quick', 'rapid'],
  ['world', 'global', 'worldwide'],
  ['earth', 'planet'],
  ['make', 'produce', 'create', 'manufacture'],
  ['invent', 'invention', 'inventor'],
  ['build', 'construct', 'construction'],
  ['country', 'nation'],
  ['city', 'town'],
  ['car', 'automobile'],
  ['money', 'cash'],
  ['price', 'cost'],
  ['job', 'employment'],
  ['rich', 'wealthy'],
  ['eat', 'consume', 'consumption', 'intake'],
  ['drink', 'beverage'],
  ['sleep', 'asleep'],
  ['heart', 'cardiac', 'cardiovascular'],
  ['brain', 'cerebral'],
  ['kidney', 'renal'],
  ['liver', 'hepatic'],
  ['lung', 'pulmonary'],
  ['skin', 'dermal'],
  ['medicine', 'medication', 'drug'],
  ['vaccine', 'vaccination', 'immunization', 'immunisation'],
  ['infection', 'infect', 'infectious'],
  ['pregnant', 'pregnancy'],
  ['woman', 'women', 'female'],
  ['man', 'men', 'male'],
  ['old', 'elderly', 'aged'],
  ['young', 'youth'],
  ['year', 'annual', 'annually'],
  ['month', 'monthly'],
  ['day', 'daily'],
  ['sun', 'solar'],
  ['moon', 'lunar'],
  ['star', 'stellar'],
  ['sea', 'ocean', 'marine'],
  ['weather', 'climate'],
  ['temperature', 'temperatures'],
  ['emission', 'emit'],
  ['law', 'legislation', 'statute'],
  ['king', 'monarch'],
  ['leader', 'chief'],
  ['internet', 'web', 'online'],
  ['phone', 'telephone'],
  ['risk', 'likelihood', 'odds'],
  ['effect', 'impact', 'influence'],
  ['study', 'trial', 'research', 'experiment'],
  ['first', 'earliest'],
  ['often', 'frequently', 'commonly'],
  ['rare', 'uncommon'],
  ['main', 'principal'],
  ['link', 'associate', 'association', 'relate', 'correlate'],
  // Who does a thing, by the thing done: "Smokers had more exacerbations" speaks of smoking (the
  // stemmer keeps "smoker" and "smoke" apart).
  ['smoke', 'smoker'],
  ['drink', 'drinker'],
  ['use', 'user'],
  ['eat', 'eater'],
  ['run', 'runner'],
  ['sleep', 'sleeper'],
  ['vape', 'vaper'],
  // A place by its adjective: "Australian bushfires" are bushfires in Australia, and the name
  // replaced by its adjective is no other place ("Alpine glaciers", "the Antarctic ice sheet").
  // Not "English", which names a language more often than a place, nor "Polish" and "Turkish",
  // whose places' names are also common words.
  ['australia', 'australian'], ['america', 'american'], ['africa', 'african'], ['asia', 'asian'],
  ['europe', 'european'], ['antarctica', 'antarctic'], ['alps', 'alpine'], ['himalayas', 'himalaya', 'himalayan'],
  ['amazon', 'amazonian'], ['siberia', 'siberian'], ['sahara', 'saharan'], ['arabia', 'arabian'],
  ['canada', 'canadian'], ['mexico', 'mexican'], ['brazil', 'brazilian'], ['argentina', 'argentinian', 'argentine'],
  ['china', 'chinese'], ['japan', 'japanese'], ['korea', 'korean'], ['india', 'indian'], ['indonesia', 'indonesian'],
  ['russia', 'russian'], ['britain', 'british'], ['france', 'french'], ['germany', 'german'], ['italy', 'italian'],
  ['spain', 'spanish'], ['greece', 'greek'], ['norway', 'norwegian'], ['sweden', 'swedish'], ['finland', 'finnish'],
  ['iceland', 'icelandic'], ['greenland', 'greenlandic'], ['ireland', 'irish'], ['scotland', 'scottish'],
  ['netherlands', 'dutch'], ['egypt', 'egyptian'], ['kenya', 'kenyan'], ['nigeria', 'nigerian'], ['iran', 'iranian'],
  ['israel', 'israeli'], ['ukraine', 'ukrainian'], ['peru', 'peruvian'],
];

const byLanguage = new Map<string, ReadonlyMap<string, string>>();

/**
 * The canonical term of each analysed synonym in `language` (the first word's analysed form
 * stands for its set), built once per language. English only: for another language the list
 * analysed in it would match nothing meaningful, so the map is empty.
 */
export function synonymMap(language: string | null): ReadonlyMap<string, string> {
  const key = language ?? '';
  let map = byLanguage.get(key);
  if (!map) {
    const built = new Map<string, string>();
    if (language === null || language === 'en') {
      for (const set of SETS) {
        const forms = set.flatMap((word) => analyze(word, 'en'));
        const canonical = forms[0];
        if (canonical === undefined) continue;
        for (const form of forms) if (!built.has(form)) built.set(form, canonical);
      }
    }
    map = built;
    byLanguage.set(key, map);
  }
  return map;
}

/** The terms with each synonym replaced by its set's canonical term. */
export function canonicalTerms(terms: readonly string[], language: string | null): string[] {
  const map = synonymMap(language);
  return terms.map((term) => map.get(term) ?? term);
}
