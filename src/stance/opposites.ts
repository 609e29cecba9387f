import { functionWordsFor } from '../text/stop-words.js';

/**
 * Words that exclude one another when said of the same thing: the sides of each group (a side
 * being a word's forms and its near synonyms). A sentence that says the claim with one side in
 * place of the claim's ("Dolphins are warm-blooded mammals" for "Dolphins are cold-blooded") says
 * it is not so, though nothing in it is a negation, a direction or another name. General
 * English, written for the model and not from any evaluation item; English only.
 */
const GROUPS: readonly (readonly string[])[][] = [
  // States of matter ("rocky" planets are solid ones).
  [['solid', 'solids', 'rocky'], ['liquid', 'liquids'], ['gas', 'gases', 'gaseous']],
  [['acidic'], ['alkaline']],
  [['warm-blooded'], ['cold-blooded']],
  [['diurnal'], ['nocturnal']],
  [['herbivore', 'herbivores', 'herbivorous'], ['carnivore', 'carnivores', 'carnivorous'], ['omnivore', 'omnivores', 'omnivorous']],
  [['virus', 'viruses', 'viral'], ['bacterium', 'bacteria', 'bacterial'], ['fungus', 'fungi', 'fungal'], ['parasite', 'parasites', 'parasitic']],
  [['plant', 'plants'], ['animal', 'animals'], ['fungus', 'fungi']],
  [['mammal', 'mammals'], ['fish', 'fishes'], ['bird', 'birds'], ['reptile', 'reptiles'], ['amphibian', 'amphibians'], ['insect', 'insects'], ['arachnid', 'arachnids']],
  [['benign'], ['malignant']],
  [['acute'], ['chronic']],
  [['voluntary', 'optional'], ['compulsory', 'mandatory', 'obligatory']],
  [['male', 'males'], ['female', 'females']],
  [['alive', 'living', 'extant'], ['dead', 'extinct']],
  [['wild'], ['domestic', 'domesticated']],
  [['freshwater'], ['saltwater']],
  [['public'], ['private']],
  [['urban'], ['rural']],
  [['natural'], ['artificial', 'synthetic', 'man-made']],
  [['permanent'], ['temporary']],
  [['legal', 'lawful'], ['illegal', 'unlawful']],
  [['visible'], ['invisible']],
  [['good', 'excellent'], ['poor', 'bad']],
  [['conductor', 'conductors'], ['insulator', 'insulators']],
  [['northern'], ['southern']],
  [['eastern'], ['western']],
  [['inner'], ['outer']],
  [['common', 'widespread', 'prevalent', 'frequent'], ['rare', 'uncommon', 'unusual', 'infrequent']],
];

/** A word as a whole word: not inside another, nor after a hyphen ("renewable" is not said in "non-renewable"). */
function says(lower: string, form: string): boolean {
  let at = lower.indexOf(form);
  while (at >= 0) {
    const before = lower[at - 1] ?? ' ';
    const after = lower[at + form.length] ?? ' ';
    if (!/[\p{L}\p{N}-]/u.test(before) && !/[\p{L}\p{N}]/u.test(after)) return true;
    at = lower.indexOf(form, at + 1);
  }
  return false;
}

/** "non-renewable", "non-toxic": a word made the opposite of another by the prefix. */
const NON = /(?<![\p{L}\p{N}-])non-(\p{L}+)/gu;

/**
 * The words of the claim that a sentence replaces by a word that excludes them, or an empty list:
 * a side of a group the claim says and the sentence does not, where the sentence says another
 * side of it (and the claim does not), or a word the claim says plainly and the sentence only
 * with "non-" before it, or the other way round. Both lower-cased.
 */
export function replacedByOpposite(claim: string, sentence: string): string[] {
  const replaced: string[] = [];
  for (const group of GROUPS) {
    const inClaim = group.map((side) => side.filter((form) => says(claim, form)));
    const inSentence = group.map((side) => side.some((form) => says(sentence, form)));
    inClaim.forEach((forms, side) => {
      if (forms.length === 0 || inSentence[side]) return;
      if (inSentence.some((said, other) => said && other !== side && inClaim[other]!.length === 0)) replaced.push(...forms);
    });
  }
  const nons = (text: string) => new Set([...text.matchAll(NON)].map((match) => match[1]!));
  const claimNon = nons(claim);
  const sentenceNon = nons(sentence);
  // The prefix goes with the word: it is no term the sentence must hold.
  for (const word of claimNon) if (!sentenceNon.has(word) && says(sentence, word)) replaced.push('non', word);
  for (const word of sentenceNon) if (!claimNon.has(word) && says(claim, word) && !says(sentence, word)) replaced.push(word);
  return replaced;
}

/**
 * "vitamin D", "hepatitis B", "World War II": a word, then an identifier (a capital letter or a
 * roman numeral) that tells one of its kind from another, as a name does. Read in the text as
 * written: the capitals are what mark an identifier.
 */
const IDENTIFIED = /(?<![\p{L}\p{N}-])(\p{L}{3,})\s+([A-Z]|[IVX]{2,4})(?![\p{L}\p{N}'’-])/gu;
const FUNCTION_WORDS = functionWordsFor('en');

function identifiersOf(text: string): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const [, word, id] of text.matchAll(IDENTIFIED)) {
    const head = word!.toLowerCase();
    if (FUNCTION_WORDS.has(head)) continue;
    if (!found.has(head)) found.set(head, new Set());
    found.get(head)!.add(id!);
  }
  return found;
}

/**
 * The identifiers of the claim (lower-cased) that a sentence replaces by another of the same word:
 * "vitamin C" for "vitamin D", "World War I" for "World War II", where the sentence does not also
 * say the claim's. Both as written.
 */
export function replacedIdentifiers(claim: string, sentence: string): string[] {
  const theirs = identifiersOf(sentence);
  const replaced: string[] = [];
  for (const [head, ours] of identifiersOf(claim)) {
    const other = theirs.get(head);
    if (other && ![...ours].some((id) => other.has(id))) replaced.push(...[...ours].map((id) => id.toLowerCase()));
  }
  return replaced;
}
