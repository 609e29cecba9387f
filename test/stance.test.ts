import { expect } from 'chai';
import { cuesOf, directionOf, polarity, quantityMatch, reportsOf, restates, statesFigures } from '../src/stance/cues.js';
import { replacedByOpposite, replacedIdentifiers } from '../src/stance/opposites.js';
import { causeStatements } from '../src/stance/causes.js';
import { alignedDirection, negatesAny, scopesOf } from '../src/stance/cue-scopes.js';
import { analyseClaim, entityTerms, namePhrases, pairFeatures, sourceCoverage } from '../src/stance/features.js';
import { analyze } from '../src/text/analyze.js';
import { checkModel, STANCES, stanceProbabilities } from '../src/stance/model.js';
import { CONFIDENCE_CALIBRATION, STANCE_MODEL, VERDICT_THRESHOLDS } from '../src/stance/model-weights.js';
import { calibrated, claimVerdict } from '../src/stance/verdict.js';
import { discounted, judgeClaim, RANK_DISCOUNT, VERDICT_SOURCES } from '../src/stance/judge-claim.js';
import { canonicalTerms } from '../src/stance/synonyms.js';
import { namesHarm } from '../src/stance/valence.js';
import { commonWording } from '../src/stance/wordings.js';
import { isPrimarySource } from '../src/validate/primary.js';
import { authorityScore } from '../src/validate/authority.js';

/** Term weights as the index would give them: rare terms weigh more. */
const WEIGHTS: Record<string, number> = { aspirin: 6, reduc: 3, risk: 2, stroke: 5, elder: 4, patient: 1.5, vitamin: 4, d: 3, bone: 4, densiti: 4 };

/** The stance model's reading of a sentence given as a source of its own. */
function stance(claim: string, sentence: string): Record<(typeof STANCES)[number], number> {
  const analysed = analyseClaim(claim, 'en', WEIGHTS);
  const features = pairFeatures(analysed, sentence, 'en', sourceCoverage(analysed, [analyze(sentence, 'en')], 'en'));
  const [supports, contradicts, neutral] = stanceProbabilities(checkModel(STANCE_MODEL), features);
  return { supports: supports!, contradicts: contradicts!, neutral: neutral! };
}

describe('stance', () => {
  describe('cues', () => {
    it('counts negations, contracted ones included, so that two cancel out', () => {
      expect(cuesOf('Aspirin does not reduce the risk.').negations).to.equal(1);
      expect(cuesOf("Aspirin doesn't reduce the risk.").negations).to.equal(1);
      expect(cuesOf('It is not without risk.').negations % 2).to.equal(0);
    });

    it('reads the direction of an effect and turns it with a negation', () => {
      expect(cuesOf('Exercise increases bone density.').direction).to.equal(1);
      expect(cuesOf('Exercise lowers blood pressure.').direction).to.equal(-1);
      expect(polarity(cuesOf('Exercise does not increase bone density.'))).to.equal(-1);
      expect(polarity(cuesOf('Exercise does not lower blood pressure.'))).to.equal(1);
      expect(cuesOf('Arctic sea ice is growing.').direction).to.equal(1);
      // "grown" is how cells are kept, not a direction: "cells were grown in culture".
      expect(cuesOf('Cells were grown in culture.').direction).to.equal(0);
    });

    it('finds hedges and numbers with their decimals, separators and percent signs', () => {
      expect(cuesOf('Vitamin D may improve bone density.').hedged).to.equal(true);
      expect(cuesOf('Vitamin D improves bone density.').hedged).to.equal(false);
      expect(cuesOf('In 2001, 32% of 1,250 programs (3.5 per state) required 330 metres.').quantities).to.deep.equal([
        { value: 2001, unit: 'calendar year' }, { value: 32, unit: '%' }, { value: 1250, unit: 'program' }, { value: 3.5, unit: '' }, { value: 330, unit: 'metre' },
      ]);
    });

    it('tells quantities that agree from those of the same kind with another value', () => {
      const quantities = (text: string) => cuesOf(text).quantities;
      expect(quantityMatch(quantities('It is 330 metres tall.'), quantities('The tower, 330 metres high, opened in 1889.'))).to.equal('agree');
      expect(quantityMatch(quantities('It is 120 metres tall.'), quantities('The tower is 330 metres high.'))).to.equal('conflict');
      expect(quantityMatch(quantities('It was completed in 1925.'), quantities('It was completed in 1889.'))).to.equal('conflict');
      expect(quantityMatch(quantities('The 100 metres record is 9.69 seconds.'), quantities('The 100 metres record is 9.58 seconds.'))).to.equal('conflict');
      expect(quantityMatch(quantities('It enrolled 400 women.'), quantities('It lasted 3 years.'))).to.equal('none');
      // After a word of time a number is a year whatever follows; a count of years is no year.
      expect(quantities('In 2021 people counted 2000 birds.')).to.deep.equal([{ value: 2021, unit: 'calendar year' }, { value: 2000, unit: 'bird' }]);
      expect(quantityMatch(quantities('It was completed in 1889.'), quantities('It took 3 years to build.'))).to.equal('none');
      // A bound between the number and what it counts: "seven or more hours" counts hours.
      expect(quantityMatch(quantities('Adults need 4 hours of sleep.'), quantities('Adults need seven or more hours of sleep per night.'))).to.equal('conflict');
    });

    it('reads a bound or a round figure as holding the amounts on its side or near it, and a period\'s start as a bound', () => {
      const quantities = (text: string) => cuesOf(text).quantities;
      expect(quantities('It burned more than 18 million hectares, about 20 centimetres, fewer than ten people.')).to.deep.equal([
        { value: 18_000_000, unit: 'hectare', bound: 'min' }, { value: 20, unit: 'centimetre', bound: 'about' }, { value: 10, unit: 'people', bound: 'max' },
      ]);
      expect(quantityMatch(quantities('It burned more than 18 million hectares.'), quantities('It burned an estimated 18.6 million hectares.'))).to.equal('agree');
      expect(quantityMatch(quantities('It burned more than 18 million hectares.'), quantities('It burned about 12 million hectares.'))).to.equal('conflict');
      expect(quantityMatch(quantities('Sea level rose 20 centimetres.'), quantities('Sea level rose by about 21 centimetres.'))).to.equal('agree');
      expect(quantityMatch(quantities('Sea level rose 20 centimetres.'), quantities('Sea level rose by 21 centimetres.'))).to.equal('conflict');
      expect(quantityMatch(quantities('Fewer than 100 people attended.'), quantities('150 people attended.'))).to.equal('conflict');
      // "since 1900" and "since the 1980s" are two periods, not two dates of one event.
      expect(quantityMatch(quantities('Glaciers have lost mass since 1900.'), quantities('The loss has accelerated since the 1980s.'))).to.equal('agree');
      expect(quantityMatch(quantities('It was completed in 1925.'), quantities('It was completed in 1889.'))).to.equal('conflict');
      // A share said in words against one in figures.
      expect(quantityMatch(quantities('Electric cars make up most of the cars on the road.'), quantities('Electric cars were about 2 percent of all cars in use.'))).to.equal('conflict');
      expect(quantityMatch(quantities('The majority of scientists agree.'), quantities('97 percent of climate scientists agree.'))).to.equal('agree');
      expect(quantities('It is the most common cause.')).to.deep.equal([]);
    });

    it('tells a restatement that says the same from one that denies or reverses the claim', () => {
      const same = (claim: string, sentence: string) => restates(cuesOf(claim), cuesOf(sentence));
      expect(same('The Great Wall is visible from the Moon.', 'The Great Wall is visible from the Moon, astronauts say.')).to.equal(true);
      expect(same('The Great Wall is visible from the Moon.', 'The Great Wall is not visible from the Moon.')).to.equal(false);
      // The predicate decides, whatever the words around it ("high" intake).
      expect(same('High sugar intake decreases the risk of tooth decay.', 'High sugar intake increases the risk of tooth decay.')).to.equal(false);
      expect(same('High sugar intake increases the risk of tooth decay.', 'High sugar intake increases the risk of tooth decay.')).to.equal(true);
      // A negated direction word says what its antonym says.
      expect(same('Statins do not increase the risk of diabetes.', 'Statins decrease the risk of diabetes.')).to.equal(true);
      expect(same('The tower is 330 metres tall.', 'The tower is 300 metres tall.')).to.equal(false);
      // A direction only one side states is not read either way: the model decides.
      expect(same('Coffee is harmful.', 'Coffee is drunk worldwide.')).to.equal(undefined);
      expect(judgeClaim({ claim: 'Coffee is harmful.', language: 'en', termWeights: {}, sources: [{ passages: ['Coffee is drunk worldwide.'] }] }).verdict)
        .to.equal('NOT_ENOUGH_INFO');
    });

    it('tells whether a sentence states a claim\'s figures', () => {
      const quantities = (text: string) => cuesOf(text).quantities;
      const claim = quantities('Unemployment fell to 4.1% in 2024.');
      expect(statesFigures(claim, quantities('In 2024 unemployment fell to 4.1 percent.'))).to.equal(true);
      expect(statesFigures(claim, quantities('Unemployment fell to 4.1 in 2023.'))).to.equal(true);
      // The year agrees, the figure is missing or another.
      expect(statesFigures(claim, quantities('Unemployment fell in 2024.'))).to.equal(false);
      expect(statesFigures(claim, quantities('Unemployment fell to 4.3% in 2024.'))).to.equal(false);
      // Only dates: the dates are the figures.
      expect(statesFigures(quantities('The census was taken in 2021.'), quantities('The census taken in 2021 counted 67 million people.'))).to.equal(true);
      expect(statesFigures([], quantities('Nothing to match.'))).to.equal(true);
    });

    it('reads dates, and tells a date that disagrees from one that is only less precise', () => {
      const quantities = (text: string) => cuesOf(text).quantities;
      for (const text of ['It fell on 14 July 1789.', 'It fell on July 14, 1789, at noon.', 'It fell on the 14th of July 1789.', 'It fell on 1789-07-14.']) {
        expect(quantities(text), text).to.deep.equal([
          { value: 17890714, unit: 'calendar date' }, { value: 178907, unit: 'calendar month' }, { value: 714, unit: 'calendar day' }, { value: 1789, unit: 'calendar year' },
        ]);
      }
      // A month name needs a day or a year beside it: the verb "may" is no date (and still hedges).
      expect(cuesOf('It opened in May 2020 and may grow.')).to.deep.include({ hedged: true, quantities: [{ value: 202005, unit: 'calendar month' }, { value: 2020, unit: 'calendar year' }] });
      expect(cuesOf('It opened in May 2020.').hedged).to.equal(false);
      expect(cuesOf('Of these patients, 10 may relapse.')).to.deep.include({ hedged: true, quantities: [{ value: 10, unit: '' }] });
      const claim = quantities('The Bastille was stormed on 14 July 1789.');
      expect(quantityMatch(claim, quantities('The Bastille fell on July 15, 1789.'))).to.equal('conflict');
      expect(quantityMatch(claim, quantities('The Bastille fell in August 1789.'))).to.equal('conflict');
      expect(quantityMatch(claim, quantities('The Bastille fell in 1789.'))).to.equal('agree');
      expect(quantityMatch(quantities('Bastille Day is on July 14.'), quantities('It is celebrated on 14 July every year.'))).to.equal('agree');
      expect(quantityMatch(quantities('Bastille Day is on July 14.'), quantities('It is celebrated on July 4.'))).to.equal('conflict');
    });
  });

  describe('what cues bear on', () => {
    const claim = scopesOf('Aspirin reduces the risk of stroke in elderly patients.', 'en', 'claim');
    const answer = (sentence: string) => alignedDirection(claim, scopesOf(sentence, 'en', 'sentence'));

    it('finds the direction word beside what the claim\'s moves, where the sentence\'s summed say nothing', () => {
      const sentence = 'Aspirin, which had increased bleeding in earlier trials, reduced the risk of stroke in elderly patients.';
      expect(cuesOf(sentence).direction).to.equal(0);
      expect(answer(sentence)).to.equal(1);
      const reversed = 'Aspirin, which had reduced bleeding in earlier trials, increased the risk of stroke in elderly patients.';
      expect(cuesOf(reversed).direction).to.equal(0);
      expect(answer(reversed)).to.equal(-1);
    });

    it('turns a direction word with a negation just before it, and ignores direction words about other things', () => {
      expect(answer('In elderly patients, aspirin did not reduce the risk of stroke.')).to.equal(-1);
      expect(answer('Aspirin reduced headaches in elderly patients over the first months of the trial, and no one had a stroke.')).to.equal(0);
    });

    it('reads a comparative before a noun as said of that noun, and a bound on a number as no direction', () => {
      const stones = scopesOf('Drinking water prevents kidney stones.', 'en', 'claim');
      // "more" is said of the water, "fewer" of the stones: they agree with "prevents".
      expect(alignedDirection(stones, scopesOf('People who drank more water developed fewer kidney stones.', 'en', 'sentence'))).to.equal(1);
      expect(alignedDirection(stones, scopesOf('People who drank more water developed more kidney stones.', 'en', 'sentence'))).to.equal(-1);
      // Said after what it qualifies, a comparative reaches back to it.
      expect(alignedDirection(stones, scopesOf('Among people who drank water, kidney stones were fewer.', 'en', 'sentence'))).to.equal(1);
      expect(cuesOf('Cases of polio have fallen by more than 99 percent.').directionWords).to.deep.equal(['fallen']);
      expect(cuesOf('Fewer than ten patients had a stroke.').direction).to.equal(0);
      expect(cuesOf('Coffee was inversely associated with diabetes among those drinking four or more cups a day.').directionWords).to.deep.equal(['inversely']);
    });

    it('turns a statement that a word calls false, before it or after it', () => {
      const autism = scopesOf('Vaccines cause autism.', 'en', 'claim');
      expect(alignedDirection(autism, scopesOf('It is a myth that vaccines cause autism.', 'en', 'sentence'))).to.equal(-1);
      const debunked = scopesOf('The claim that vaccines cause autism has been thoroughly debunked.', 'en', 'sentence');
      expect(alignedDirection(autism, debunked)).to.equal(-1);
      expect(negatesAny(debunked, new Map([['autism', 5]]))).to.equal(true);
      // "false" names things too ("false positives"): it is no denial.
      expect(cuesOf('The test had few false positives.').negations).to.equal(0);
    });

    it('turns a direction word said to have stopped, and only beside it', () => {
      const rising = scopesOf('Global temperatures kept rising after 1998.', 'en', 'claim');
      expect(alignedDirection(rising, scopesOf('Global temperatures stopped rising after 1998.', 'en', 'sentence'))).to.equal(-1);
      expect(alignedDirection(rising, scopesOf('The growth of global temperatures has not ceased to rise since 1998.', 'en', 'sentence'))).to.equal(1);
      // "Stopping statins" stops the statins, not the increase two words on.
      const risk = scopesOf('Stopping statins increased the risk of stroke.', 'en', 'claim');
      expect(alignedDirection(risk, scopesOf('Patients who stopped statins had an increased risk of stroke.', 'en', 'sentence'))).to.equal(1);
    });

    it('knows which terms a negation bears on', () => {
      const scopes = scopesOf('Aspirin did not lower the risk of stroke, and it was well tolerated.', 'en', 'sentence');
      expect(negatesAny(scopes, new Map([['stroke', 5]]))).to.equal(true);
      expect(negatesAny(scopes, new Map([['toler', 3]]))).to.equal(false);
    });
  });

  describe('the trained model', () => {
    const claim = 'Aspirin reduces the risk of stroke in elderly patients.';

    it('sees support in a sentence that says the same thing', () => {
      const p = stance(claim, 'In elderly patients, daily aspirin reduced the risk of stroke by a third.');
      expect(p.supports).to.be.greaterThan(p.contradicts);
      expect(p.supports).to.be.greaterThan(p.neutral);
    });

    it('sees a contradiction when the direction is reversed or the effect negated', () => {
      for (const sentence of [
        'In elderly patients, daily aspirin increased the risk of stroke.',
        'In elderly patients, aspirin did not reduce the risk of stroke.',
        'Aspirin, which had reduced bleeding in earlier trials, increased the risk of stroke in elderly patients.',
      ]) {
        const p = stance(claim, sentence);
        expect(p.contradicts, sentence).to.be.greaterThan(p.supports);
      }
    });

    it('finds a sentence about something else neutral', () => {
      const p = stance(claim, 'The trial enrolled volunteers from twelve hospitals between 2004 and 2009.');
      expect(p.neutral).to.be.greaterThan(p.supports);
      expect(p.neutral).to.be.greaterThan(p.contradicts);
    });

    it('reads a finding with the sentence before it, which names what it speaks of', () => {
      const finding = 'The risk of stroke fell by a third.';
      const analysed = analyseClaim(claim, 'en', WEIGHTS);
      const terms = analyze(finding, 'en');
      const previous = analyze('Elderly patients took aspirin daily for five years.', 'en');
      // Both read as sentences of one source: only the previous sentence differs.
      const source = sourceCoverage(analysed, [previous, terms], 'en');
      const alone = stanceProbabilities(checkModel(STANCE_MODEL), pairFeatures(analysed, finding, 'en', source, terms));
      const read = stanceProbabilities(checkModel(STANCE_MODEL), pairFeatures(analysed, finding, 'en', source, terms, previous));
      expect(read[0]).to.be.greaterThan(alone[0]! + 0.05);
    });

    it('reads a sentence as more likely about the claim when its source states the claim elsewhere', () => {
      const analysed = analyseClaim(claim, 'en', WEIGHTS);
      const finding = 'The risk of stroke fell by a third.';
      const terms = analyze(finding, 'en');
      const elsewhere = analyze('Elderly patients in the trial took aspirin daily.', 'en');
      const probabilities = (source: readonly (readonly string[])[]) =>
        stanceProbabilities(checkModel(STANCE_MODEL), pairFeatures(analysed, finding, 'en', sourceCoverage(analysed, source, 'en'), terms));
      const alone = probabilities([terms]);
      const named = probabilities([elsewhere, analyze('Follow-up lasted five years.', 'en'), terms]);
      expect(named[2]).to.be.lessThan(alone[2]!);
    });

    it('refuses weights trained for another feature list', () => {
      expect(() => checkModel({ ...STANCE_MODEL, features: STANCE_MODEL.features.slice(1) })).to.throw(/train-stance/);
    });
  });

  describe('verdicts', () => {
    it('needs one strong sentence for a verdict and lets a clear contradiction win', () => {
      expect(claimVerdict([[0.2, 0.1, 0.7], [0.1, 0.2, 0.7]], { minimum: 0.5, contradictionMargin: 1 })).to.equal('NOT_ENOUGH_INFO');
      expect(claimVerdict([[0.8, 0.1, 0.1], [0.1, 0.2, 0.7]], { minimum: 0.5, contradictionMargin: 1 })).to.equal('SUPPORT');
      expect(claimVerdict([[0.6, 0.1, 0.3], [0.1, 0.7, 0.2]], { minimum: 0.5, contradictionMargin: 1 })).to.equal('CONTRADICT');
      // A side below the minimum never wins, whatever the margin.
      expect(claimVerdict([[0.45, 0.1, 0.45], [0.1, 0.55, 0.35]], { minimum: 0.5, contradictionMargin: 0.5 })).to.equal('CONTRADICT');
      expect(claimVerdict([], VERDICT_THRESHOLDS)).to.equal('NOT_ENOUGH_INFO');
    });

    it('pools the sentences that clearly take a side when both sides count', () => {
      // Two sentences that support outweigh one stronger contradiction; the strongest alone would decide the other way.
      const sentences = [[0.7, 0.1, 0.2], [0.65, 0.15, 0.2], [0.1, 0.8, 0.1], [0.4, 0.1, 0.5]];
      expect(claimVerdict(sentences, { minimum: 0.5, contradictionMargin: 1 })).to.equal('SUPPORT');
      // A sentence below the minimum on both sides is not pooled: 0.4 more support would not outweigh 0.8 against 0.7.
      expect(claimVerdict([[0.7, 0.1, 0.2], [0.4, 0.1, 0.5], [0.1, 0.8, 0.1]], { minimum: 0.5, contradictionMargin: 1 })).to.equal('CONTRADICT');
    });
  });

  describe('alignment', () => {
    it('reads the inflections of direction words, but not the words derived from their stems', () => {
      expect(['rising', 'boosted', 'activating', 'lowering', 'declining', 'cuts'].map(directionOf)).to.deep.equal([1, 1, 1, -1, -1, -1]);
      expect(['activity', 'promoter', 'positions', 'process', 'unless'].map(directionOf)).to.deep.equal([0, 0, 0, 0, 0]);
    });

    it('tells a statement that the evidence is unsettled', () => {
      for (const text of ['It is not known whether coffee protects the liver.', 'More research is needed.', 'The evidence is still limited.', 'Results were mixed.']) {
        expect(cuesOf(text).uncertain, text).to.equal(true);
      }
      expect(cuesOf('Coffee protected the liver in a trial of 2,000 adults.').uncertain).to.equal(false);
    });

    it('reads numbers in words, scale words and units of one dimension', () => {
      const quantities = (text: string) => cuesOf(text).quantities;
      expect(quantities('It takes about eight minutes.')).to.deep.equal([{ value: 8, unit: 'minute', bound: 'about' }]);
      expect(quantities('The Earth is 4.6 billion years old.')).to.deep.equal([{ value: 4.6e9, unit: 'year' }]);
      expect(quantities('One of them was there.')).to.deep.equal([]);
      expect(quantityMatch(quantities('Light takes 8 seconds to reach us.'), quantities('Light takes 8.3 minutes to reach us.'))).to.equal('conflict');
      expect(quantityMatch(quantities('The race is 1 mile long.'), quantities('The race is 1.6 km long.'))).to.equal('agree');
      expect(quantityMatch(quantities('A dose of 400 micrograms.'), quantities('A dose of 40 micrograms.'))).to.equal('conflict');
    });

    it('finds the names a text states, and takes common synonyms for one term', () => {
      expect([...entityTerms('Jupiter is the largest planet, NASA says.', 'en')]).to.deep.equal(['nasa']);
      expect([...entityTerms('The largest planet is Jupiter, NASA says.', 'en')]).to.deep.equal(['jupit', 'nasa']);
      // A headline in title case: only the capitals name.
      expect([...entityTerms('Scientists Say Coffee Protects The Liver From NASH', 'en')]).to.deep.equal(['nash']);
      expect(canonicalTerms(analyze('physicians', 'en'), 'en')).to.deep.equal(canonicalTerms(analyze('doctor', 'en'), 'en'));
    });
  });

  describe('names', () => {
    it('reads a name of several words as one, a sentence\'s first word with the name after it', () => {
      expect(namePhrases('The Great Barrier Reef lies off Queensland, Australia, as Leonardo da Vinci never knew.', 'en', 'proper'))
        .to.deep.equal([['great', 'barrier', 'reef'], ['queensland'], ['australia'], ['leonardo', 'vinci']]);
      expect(namePhrases('Mount Kilimanjaro is in Tanzania.', 'en', 'proper')).to.deep.equal([['mount', 'kilimanjaro'], ['tanzania']]);
      // A sentence of names is no headline; a headline in title case names nothing by its capitals.
      expect(namePhrases('The Taj Mahal is in Pakistan.', 'en', 'proper')).to.deep.equal([['taj', 'mahal'], ['pakistan']]);
      expect(namePhrases('Neil Armstrong Walks On The Moon', 'en', 'proper')).to.deep.equal([]);
      // German capitalises every noun: a capital names nothing there.
      expect(namePhrases('Regelmäßige Bewegung senkt den Blutdruck in Berlin.', 'de', 'proper')).to.deep.equal([]);
    });

    it('leaves out the symbols of the sciences and the headings of structured abstracts', () => {
      expect(namePhrases('BACKGROUND Taxing sugary drinks lowers NF-κB and BRCA1 in C-type cells of India.', 'en', 'proper')).to.deep.equal([['india']]);
      // As the model's features read names: symbols included, a sentence's first word not.
      expect([...entityTerms('Mount Kilimanjaro lowers the levels of BRCA1 in mice.', 'en')]).to.deep.equal(['kilimanjaro', 'brca1']);
    });

    it('contradicts a short passage that says the claim of another place, person or thing', () => {
      const judge = (claim: string, passage: string) => judgeClaim({ claim, language: 'en', termWeights: {}, sources: [{ passages: [passage] }] }).verdict;
      expect(judge('The Colosseum is located in Athens.', 'The Colosseum is an ancient amphitheatre located in the centre of Rome, Italy.')).to.equal('CONTRADICT');
      expect(judge('The Danube flows into the North Sea.', 'The Danube flows through ten countries before emptying into the Black Sea in Romania.')).to.equal('CONTRADICT');
      // The same name shortened, or other names beside the claim's, are no other thing.
      expect(judge('The Colosseum is located in Rome.', 'The Colosseum is an ancient amphitheatre located in the centre of Rome, Italy.')).to.equal('SUPPORT');
      expect(judge('Marie Curie discovered polonium in Paris.', 'Together with her husband Pierre, Curie discovered polonium in 1898 in Paris.')).to.equal('SUPPORT');
      // Another name in a sentence that does not make the claim's statement: no contradiction.
      expect(judge('Marie Curie was born in Warsaw.', 'Marie Curie and Pierre Curie shared the 1903 Nobel Prize in Physics with Henri Becquerel.')).to.not.equal('CONTRADICT');
    });
  });

  describe('restatements', () => {
    const judge = (claim: string, passage: string) => judgeClaim({ claim, language: 'en', termWeights: {}, sources: [{ passages: [passage] }] }).verdict;

    it('reads a restatement\'s direction where it bears on the claim, not by the sentence\'s negations in all', () => {
      const passage = 'People who exercised regularly had lower blood pressure than those who did not.';
      expect(judge('Regular exercise lowers blood pressure.', passage)).to.equal('SUPPORT');
      expect(judge('Regular exercise raises blood pressure.', passage)).to.equal('CONTRADICT');
      expect(judge('Regular exercise does not lower blood pressure.', passage)).to.equal('CONTRADICT');
    });

    it('reads a belief called a myth, or a claim said to be debunked, as contradicted, and its denial as supported', () => {
      expect(judge('Vaccines cause autism.', 'It is a myth that vaccines cause autism.')).to.equal('CONTRADICT');
      expect(judge('Vaccines cause autism.', 'The claim that vaccines cause autism has been thoroughly debunked.')).to.equal('CONTRADICT');
      expect(judge('Vaccines do not cause autism.', 'The claim that vaccines cause autism has been thoroughly debunked.')).to.equal('SUPPORT');
      expect(judge('Humans use only 10 percent of their brains.', 'The idea that humans use only 10 percent of their brains is a misconception.')).to.equal('CONTRADICT');
    });

    it('reads a belief a page reports and then answers as denied, and one it only reports as taking no side', () => {
      const late = 'Many people believe that eating late at night makes you gain weight, but studies that control for total calories have found no such effect.';
      expect(judge('Eating late at night makes you gain weight.', late)).to.equal('CONTRADICT');
      expect(judge('Eating late at night does not make you gain weight.', late)).to.equal('SUPPORT');
      expect(judge('Cracking your knuckles causes arthritis.',
        'Although many people think that cracking your knuckles causes arthritis, studies have found no such association.')).to.equal('CONTRADICT');
      // Answered in the next sentence, with or without a direction word in the belief.
      expect(judge('Vaccines cause autism.', 'Many parents believe that vaccines cause autism. However, large studies have found no link between them.')).to.equal('CONTRADICT');
      expect(judge('Bulls are enraged by the colour red.',
        'It is widely believed that bulls are enraged by the colour red. In fact, bulls cannot see red; they charge at the movement of the cape.')).to.equal('CONTRADICT');
      expect(judge('Bulls are enraged by the colour red.', 'It is widely believed that bulls are enraged by the colour red.')).to.equal('NOT_ENOUGH_INFO');
      // The belief restated in full decides, with or without a negation in the answer, and "X was
      // thought to…" reports what it says of X.
      const goldfish = 'Goldfish were long thought to have a three-second memory, but they can remember feeding times for months.';
      expect(judge('Goldfish have a three-second memory.', goldfish)).to.equal('CONTRADICT');
      expect(judge('Goldfish do not have a three-second memory.', goldfish)).to.equal('SUPPORT');
      expect(judge('Humans have five senses.', 'It is often claimed that humans have five senses, but scientists count at least nine.')).to.equal('CONTRADICT');
      // A belief confirmed is held; an answer that says what is not known denies nothing.
      expect(judge('Inflammation drives atherosclerosis.',
        'Inflammation is thought to drive atherosclerosis, and trials of anti-inflammatory drugs have confirmed it.')).to.equal('SUPPORT');
      expect(reportsOf('inflammation is thought to drive atherosclerosis, but how it does so is not understood.')).to.deep.equal({ denied: [], unanswered: [] });
      // A run of hundreds of words (a list, a table flattened) is no sentence: not read for reports.
      expect(reportsOf(`${'many believe that cats sleep, but '.repeat(40)}no.`).denied).to.deep.equal([]);
      expect(reportsOf('many believe that cats sleep all day, but they do not.').denied).to.have.length(1);
    });

    it('contradicts a restatement that puts a word excluding one of the claim\'s in its place', () => {
      expect(judge('Lemon juice is alkaline.', 'Lemon juice is strongly acidic, with a pH of about 2.')).to.equal('CONTRADICT');
      expect(judge('Lemon juice is acidic.', 'Lemon juice is strongly acidic, with a pH of about 2.')).to.equal('SUPPORT');
      expect(judge('Wind power is a non-renewable source of energy.', 'Wind power is a renewable source of energy.')).to.equal('CONTRADICT');
      expect(judge('Oil is a renewable source of energy.', 'Oil is a non-renewable source of energy formed over millions of years.')).to.equal('CONTRADICT');
      expect(judge('Whales are fish.', 'Whales are mammals that breathe air.')).to.equal('CONTRADICT');
      // An identifier after a word tells one of its kind from another, as a name does.
      expect(judge('Night blindness is caused by a lack of vitamin B.', 'Night blindness is caused by a lack of vitamin A.')).to.equal('CONTRADICT');
      expect(judge('The Treaty of Versailles ended World War II.', 'The Treaty of Versailles formally ended World War I in 1919.')).to.equal('CONTRADICT');
      expect(replacedIdentifiers('Scurvy is caused by a lack of vitamin C.', 'Scurvy is caused by a lack of vitamin C, not vitamin D.')).to.deep.equal([]);
      // "then I" is a pronoun after a function word, no identifier.
      expect(replacedIdentifiers('It was World War II.', 'And then I read about the war.')).to.deep.equal([]);
      // Both sides said: which one the sentence says of the claim's subject is not read.
      expect(replacedByOpposite('whales are fish.', 'whales are mammals, not fish.')).to.deep.equal([]);
      // A word inside another, or after a hyphen, is not said.
      expect(replacedByOpposite('the engine runs on gas.', 'the engine runs on gasoline.')).to.deep.equal([]);
    });

    it('contradicts a sentence that names another cause of what the claim says is caused', () => {
      const plates = 'Most earthquakes are caused by the sudden movement of tectonic plates along faults.';
      expect(judge('Earthquakes are mainly caused by the phases of the Moon.', plates)).to.equal('CONTRADICT');
      expect(judge('Earthquakes are caused by the movement of tectonic plates.', plates)).to.equal('SUPPORT');
      const cholera = 'Cholera is spread mainly through water contaminated with the faeces of infected people.';
      expect(judge('Cholera is spread by mosquitoes.', cholera)).to.equal('CONTRADICT');
      expect(judge('Cholera is spread through contaminated water.', cholera)).to.equal('SUPPORT');
      expect(causeStatements('the main cause of the high inflation of the 1970s was the sharp rise in oil prices, with loose money.'))
        .to.deep.equal([{ effect: 'the high inflation of the 1970s', cause: 'the sharp rise in oil prices' }]);
      // "The cause of" is a noun, not "X causes Y".
      expect(causeStatements('the cause of the fire is unknown.')).to.deep.equal([]);
    });

    it('takes no support from a sentence that says what causes the claim\'s cause rather than what it causes', () => {
      const claim = 'The ozone hole is the main cause of global warming.';
      expect(causeStatements('the ozone hole is the main cause of global warming.')).to.deep.equal([{ effect: 'global warming', cause: 'the ozone hole' }]);
      const sources = [
        { passages: ['The ozone hole over Antarctica was caused mainly by chlorofluorocarbons.'] },
        { passages: ['Global warming is caused mainly by rising concentrations of greenhouse gases such as carbon dioxide, not by the ozone hole.'] },
      ];
      const judged = judgeClaim({ claim, language: 'en', termWeights: {}, sources, rankings: [null, null] });
      expect(judged.sources[0]!.stance).to.not.equal('supports');
      expect(judged.verdict).to.equal('CONTRADICT');
      expect(judge('Chlorofluorocarbons caused the ozone hole.', 'The ozone hole over Antarctica was caused mainly by chlorofluorocarbons.')).to.equal('SUPPORT');
    });

    it('reads a plain word and its field\'s term, or a British and an American spelling, as one', () => {
      const aspirin = 'Daily low-dose acetylsalicylic acid reduced the incidence of myocardial infarction by 44 percent among male physicians.';
      expect(judge('Aspirin lowers the risk of heart attack.', aspirin)).to.equal('SUPPORT');
      expect(judge('Aspirin raises the risk of heart attacks.', aspirin)).to.equal('CONTRADICT');
      const hypertension = 'Hypertension is common among older adults, affecting about two thirds of people over 65.';
      expect(judge('High blood pressure is common in older adults.', hypertension)).to.equal('SUPPORT');
      expect(judge('High blood pressure is rare in older adults.', hypertension)).to.equal('CONTRADICT');
      expect(judge('Carbon dioxide levels in the atmosphere are falling.', 'Atmospheric CO2 concentrations have risen from about 280 ppm to over 410 ppm.')).to.equal('CONTRADICT');
      expect(judge('Anaemia is common in pregnancy.', 'Anemia affects about 40 percent of pregnant women worldwide.')).to.equal('SUPPORT');
      expect(commonWording('Levels of CO2 and GERD in randomised trials; Gerd Müller; varicella-zoster virus; colour.', 'en'))
        .to.equal('Levels of carbon dioxide and gastroesophageal reflux in randomized trials; Gerd Müller; varicella-zoster virus; color.');
      expect(commonWording('High blood pressure', 'de')).to.equal('High blood pressure');
    });

    it('reads the claim\'s own direction word in a sentence as answering that word only, in any inflection', () => {
      expect(judge('Vitamin B12 deficiency can cause anemia.', 'Vitamin B12 deficiency leads to anemia.')).to.equal('SUPPORT');
      expect(judge('A deficiency of magnesium causes muscle cramps.', 'A deficiency of magnesium can cause muscle cramps and spasms.')).to.equal('SUPPORT');
      expect(judge('Without predators, deer populations grow.', 'Without predators, deer populations grew rapidly.')).to.equal('SUPPORT');
    });

    it('reads less of a harm as better and more of it as worse, where one side speaks of worth and the other of amount', () => {
      const exercise = 'In the trial, supervised exercise led to a marked reduction in depressive symptoms compared with usual care.';
      expect(judge('Exercise improves depression.', exercise)).to.equal('SUPPORT');
      expect(judge('Exercise worsens depression.', exercise)).to.equal('CONTRADICT');
      const dexamethasone = 'Dexamethasone reduced 28-day mortality among patients with Covid-19 who were receiving mechanical ventilation.';
      expect(judge('Dexamethasone improves survival in severe COVID-19.', dexamethasone)).to.equal('SUPPORT');
      expect(judge('Dexamethasone harms patients with severe COVID-19.', dexamethasone)).to.equal('CONTRADICT');
      // Most of a sentence's direction words said of harms decide its way; a smoker is one who smokes.
      const smokers = 'Smokers with asthma had more frequent exacerbations and more severe symptoms than non-smokers.';
      expect(judge('Smoking worsens asthma.', smokers)).to.equal('SUPPORT');
      expect(judge('Smoking improves asthma control.', smokers)).to.equal('CONTRADICT');
      // Amount against amount, and worth against something that is no harm, read as before.
      expect(judge('Meditation increases anxiety.', 'Mindfulness meditation programs produced a moderate reduction in anxiety in randomized trials.')).to.equal('CONTRADICT');
      expect(namesHarm(new Set(['depress', 'symptom']))).to.equal(true);
      expect(namesHarm(new Set(['liver', 'cirrhosi']))).to.equal(true);
      expect(namesHarm(new Set(['liver', 'diagnosi']))).to.equal(false);
      expect(namesHarm(new Set(['arthriti', 'insulin']))).to.equal(true);
      expect(namesHarm(new Set(['insulin', 'secret', '19']))).to.equal(false);
    });

    it('reads a finding of worth as said of the condition of those who had it, however far from its direction word', () => {
      const trial = 'Hydroxychloroquine did not improve clinical status at 15 days in patients hospitalized with Covid-19.';
      expect(judge('Hydroxychloroquine cures COVID-19.', trial)).to.equal('CONTRADICT');
      const scopes = scopesOf(trial, 'en', 'sentence');
      expect([...scopes.directed[0]!.terms]).to.include('covid');
      // A finding whose worth is unknown ("shortened the time") is not said of the condition.
      const sleep = scopesOf('Therapy shortened the time to fall asleep in adults with chronic insomnia.', 'en', 'sentence');
      expect(sleep.directed.some((d) => d.stem === 'shorten' && d.terms.has('insomnia'))).to.equal(false);
    });

    it('reads a claim\'s direction word followed by an adjunct as said of what comes before it', () => {
      const claim = scopesOf('The Antarctic ozone hole has been growing since the Montreal Protocol.', 'en', 'claim');
      expect([...claim.directed[0]!.terms]).to.include.members(['ozon', 'hole']);
      expect(judge('The Antarctic ozone hole has been growing since the Montreal Protocol.', 'Since the early 2000s the Antarctic ozone hole has been slowly shrinking.')).to.equal('CONTRADICT');
      // What follows a direction word that is not an adjunct is still what it moves.
      expect([...scopesOf('Metformin lowers blood sugar in people with diabetes.', 'en', 'claim').directed[0]!.terms]).to.include.members(['blood']);
    });

    it('reads "never smokers" as a group, "effective against" as down, and no number as a thing a direction moves', () => {
      expect(commonWording('Smokers had a higher risk than never smokers; Never-smokers and never drinkers; they never smoked.', 'en'))
        .to.equal('Smokers had a higher risk than nonsmokers; Nonsmokers and nondrinkers; they never smoked.');
      expect(judge('Smoking increases the risk of severe COVID-19.', 'Current smokers had a higher risk of severe disease and of death from Covid-19 than never smokers.')).to.equal('SUPPORT');
      expect(cuesOf('Artemisinin is effective against malaria.').direction).to.equal(-1);
      expect(cuesOf('Artemisinin is effective.').direction).to.equal(1);
      const scopes = scopesOf('Ivermectin inhibits the replication of Covid-19 in cell culture at high concentrations.', 'en', 'sentence');
      expect(scopes.directed.some((d) => d.terms.has('19'))).to.equal(false);
    });

    it('reads a place and its adjective as one name', () => {
      expect(canonicalTerms(analyze('Australian Alpine glaciers', 'en'), 'en')).to.deep.equal(canonicalTerms(analyze('Australia Alps glacier', 'en'), 'en'));
      expect(judge('Wildfires in Australia burned more than 18 million hectares in the 2019–2020 season.',
        'The 2019–2020 Australian bushfire season burned an estimated 18.6 million hectares and destroyed more than 3,000 homes.')).to.equal('SUPPORT');
    });

    it('reads a treatment no better than placebo as not effective, and one better than placebo in relieving a harm as relieving it', () => {
      expect(commonWording('Cranberry juice was no more effective than a placebo drink in preventing infections; no better than sham acupuncture in reducing pain; not superior to usual care.', 'en'))
        .to.equal('Cranberry juice was not effective in preventing infections; not effective in reducing pain; not effective.');
      // A comparison with a treatment is left as written.
      expect(commonWording('It was no better than ibuprofen.', 'en')).to.equal('It was no better than ibuprofen.');
      expect(judge('Glucosamine relieves knee pain in people with osteoarthritis.', 'Glucosamine was no more effective than placebo in relieving knee pain in patients with osteoarthritis.')).to.equal('CONTRADICT');
      expect(judge('Echinacea prevents colds.', 'Echinacea was not superior to placebo in preventing colds in healthy adults.')).to.equal('CONTRADICT');
      // "more than placebo" is the size of the relief, "more effective than usual care in relieving" the relief itself.
      expect(cuesOf('Chondroitin relieved joint pain more than placebo.').directionWords).to.deep.equal(['relieved']);
      expect(cuesOf('Massage was more effective than usual care in relieving anxiety.').directionWords).to.deep.equal(['relieving']);
      expect(judge('Chondroitin relieves joint pain.', 'Chondroitin sulfate relieved joint pain more than placebo in patients with hand osteoarthritis.')).to.equal('SUPPORT');
      expect(judge('Massage relieves anxiety.', 'Massage therapy was more effective than usual care in relieving anxiety in patients with cancer.')).to.equal('SUPPORT');
    });

    it('reads a lack, an absence or a shortage of a thing as its deficiency, and the absence of a finding as a denial', () => {
      expect(judge('Lack of vitamin D causes rickets.', 'Vitamin D deficiency is the commonest cause of rickets in children.')).to.equal('SUPPORT');
      expect(judge('Mice lacking the leptin gene become severely obese.', 'Leptin-deficient mice eat excessively and develop severe obesity.')).to.equal('SUPPORT');
      expect(judge('Iron deficiency raises hemoglobin levels.', 'A lack of iron lowers hemoglobin levels and causes anemia.')).to.equal('CONTRADICT');
      expect(judge('Coffee drinking is linked to pancreatic cancer.', 'A large cohort study found a lack of association between coffee drinking and pancreatic cancer.'))
        .to.equal('CONTRADICT');
      expect(judge('Penguins lack feathers.', 'Penguins are covered in dense, short feathers that keep them warm.')).to.equal('CONTRADICT');
      expect(commonWording('Lack of sleep; mice raised without gut bacteria; mice lacking Sirt1; a shortage of rain.', 'en'))
        .to.equal('Deficiency of sleep; mice raised deficiency of gut bacteria; mice deficient in Sirt1; a deficiency of rain.');
      expect(commonWording('A lack of any benefit; without side effects; without affecting survival; with or without surgery; evidence is lacking; they lack iron.', 'en'))
        .to.equal('A lack of any benefit; without side effects; without affecting survival; with or without surgery; evidence is lacking; they lack iron.');
    });

    it('turns a direction word by a negation that reaches it through words of effect and significance', () => {
      expect(judge('Garlic lowers blood pressure.', 'In this trial, garlic did not result in a significantly lower blood pressure than placebo.')).to.equal('CONTRADICT');
      expect(judge('Garlic lowers blood pressure.', 'Garlic did not lead to any reduction in blood pressure.')).to.equal('CONTRADICT');
      // Another word between them ends the negation's reach.
      const signs = (text: string) => scopesOf(text, 'en', 'sentence').directed.map((d) => d.sign);
      expect(signs('Garlic did not result in a significantly lower blood pressure.')).to.deep.equal([1]);
      expect(signs('Patients who did not smoke had a lower blood pressure.')).to.deep.equal([-1]);
      // A negation of a gerund before the direction word is the subject's, not the direction's.
      expect(judge('Not smoking lowers blood pressure.', 'Patients who did not smoke had a lower blood pressure.')).to.equal('SUPPORT');
      expect(scopesOf('Not smoking lowers blood pressure.', 'en', 'claim').directed.map((d) => d.sign)).to.deep.equal([-1]);
      expect(scopesOf('Not having a lower blood pressure.', 'en', 'claim').directed.map((d) => d.sign)).to.deep.equal([1]);
    });

    it('reads multiplying verbs as directions, and "effective" said of the effect after it as none of its own', () => {
      const smoking = 'Cigarette smoking roughly doubles the risk of stroke, independently of other risk factors.';
      expect(judge('Smoking raises the risk of stroke.', smoking)).to.equal('SUPPORT');
      expect(judge('Smoking lowers the risk of stroke.', smoking)).to.equal('CONTRADICT');
      // "Double-blind" is no doubling.
      expect(directionOf('double')).to.equal(0);
      expect(judge('Whooping cough can be prevented by vaccination.', 'Acellular pertussis vaccines are effective in preventing pertussis in infants and children.'))
        .to.equal('SUPPORT');
    });

    it('reads "above" and "below" a level as up and down, and said of anything else as no direction', () => {
      expect(judge('The year 2016 was cooler than the average of the twentieth century.',
        'In 2016 the global average surface temperature was about 0.9 degrees Celsius above the twentieth-century average.')).to.equal('CONTRADICT');
      expect(cuesOf('rainfall was below average').direction).to.equal(-1);
      expect(cuesOf('patients above 50 years of age').direction).to.equal(0);
      expect(cuesOf('as described above, the samples were frozen').direction).to.equal(0);
    });

    it('reads a trend said to have stopped against one said to go on', () => {
      expect(judge('Global temperatures stopped rising after 1998.', 'Global temperatures have continued to rise since 1998.')).to.equal('CONTRADICT');
      expect(judge('The population stopped growing in 2010.', 'The population has continued to grow since 2010.')).to.equal('CONTRADICT');
      expect(judge('The population stopped growing in 2010.', 'The population stopped growing in 2010, the census found.')).to.equal('SUPPORT');
    });

    it('reads a question as asserting nothing, and the answer after it as what takes a side', () => {
      // A page's heading that asks the claim restates it word for word.
      expect(judge('Coffee causes cancer.', 'Does coffee cause cancer?')).to.equal('NOT_ENOUGH_INFO');
      expect(judge('Coffee causes cancer.', 'Does coffee cause cancer? No. Large studies have found that drinking coffee does not raise the risk of cancer.')).to.equal('CONTRADICT');
      expect(judge('Vitamin C prevents colds.', 'Can vitamin C prevent colds? Trials found that regular vitamin C did not reduce how often adults caught colds.')).to.equal('CONTRADICT');
      expect(judge('Vitamin C prevents colds.', 'Can vitamin C prevent colds? Yes: in trials, regular vitamin C prevented colds in people under heavy physical stress.')).to.equal('SUPPORT');
    });
  });

  describe('the sources a verdict is drawn from', () => {
    const claim = 'Rising ocean temperatures cause coral bleaching.';
    const other = { passages: ['Coral reefs are built by colonies of tiny animals.'] };
    const deciding = { passages: ['Rising ocean temperatures cause coral bleaching, surveys show.'] };
    const sources = [other, { passages: ['Reef fish change colour as they grow.'] }, { passages: ['Tourism brings money to the coast.'] }, { passages: ['Queensland lies in Australia.'] }, deciding];

    it(`weighs a ranked source less for each place below its ranking's first (${RANK_DISCOUNT} a place), a named page fully`, () => {
      const judge = (order: typeof sources, rankings: (number | null)[]) => judgeClaim({ claim, language: 'en', termWeights: {}, sources: order, rankings });
      const first = judge([deciding, other], [0, 0]);
      const second = judge([other, deciding], [0, 0]);
      // A clear restatement still decides from the second place, with less confidence.
      expect([first.verdict, second.verdict]).to.deep.equal(['SUPPORT', 'SUPPORT']);
      expect(second.support).to.be.closeTo(calibrated(first.verdictSupport * RANK_DISCOUNT, CONFIDENCE_CALIBRATION.support), 1e-9);
      expect(second.support).to.be.lessThan(first.support);
      expect(judge([other, deciding], [null, null]).support).to.equal(first.support);
      expect(discounted([0.6, 0.2, 0.2], 0.5)).to.deep.equal([0.3, 0.1, 0.6]);
    });

    it(`takes every page the client named, but only the first ${VERDICT_SOURCES} of a ranking`, () => {
      const named = judgeClaim({ claim, language: 'en', termWeights: {}, sources, rankings: sources.map(() => null) });
      expect(named.sources.map((s) => s.decisive)).to.deep.equal([true, true, true, true, true]);
      expect(named.verdict).to.equal('SUPPORT');
      const ranked = judgeClaim({ claim, language: 'en', termWeights: {}, sources, rankings: sources.map(() => 0) });
      expect(ranked.sources.map((s) => s.decisive)).to.deep.equal([true, true, true, false, false]);
      expect(ranked.verdict).to.equal('NOT_ENOUGH_INFO');
      // Each ranking (each domain the client named) has its own first sources.
      const domains = judgeClaim({ claim, language: 'en', termWeights: {}, sources, rankings: [0, 0, 0, 0, 1] });
      expect(domains.sources.map((s) => s.decisive)).to.deep.equal([true, true, true, false, true]);
      expect(domains.verdict).to.equal('SUPPORT');
    });
  });

  describe('confidence', () => {
    it('is calibrated: rising with the evidence, 0 without any', () => {
      expect(calibrated(0, [-2, 4])).to.equal(0);
      expect(calibrated(0.9, [-2, 4])).to.be.greaterThan(calibrated(0.6, [-2, 4]));
      expect(calibrated(0.5, [-2, 4])).to.be.closeTo(0.5, 1e-9);
    });
  });

  describe('primary sources', () => {
    const primary = (claim: string, domain: string, configured: { domain: string; weight: number }[] = []) => isPrimarySource(claim, { domain }, configured);

    it('knows the publisher the claim is about, acronyms only in capitals', () => {
      expect(primary('Pfizer reported a 95% efficacy.', 'www.pfizer.com')).to.equal(true);
      expect(primary('CNN reported the result first.', 'edition.cnn.com')).to.equal(true);
      expect(primary('Most people who smoke start young.', 'who.example.org')).to.equal(false);
      expect(primary('Pfizer reported a 95% efficacy.', 'pharma-news.example.com')).to.equal(false);
    });

    it('counts official and academic publishers, and those the operator trusts most', () => {
      expect(primary('Unemployment fell to 4%.', 'www.bls.gov')).to.equal(true);
      expect(primary('The vaccine works.', 'www.ox.ac.uk')).to.equal(true);
      expect(primary('The vaccine works.', 'journal.example.org', [{ domain: 'example.org', weight: 0.95 }])).to.equal(true);
      expect(primary('The vaccine works.', 'journal.example.org', [{ domain: 'example.org', weight: 0.6 }])).to.equal(false);
      // The most specific entry decides: the operator trusts the site, not its forum.
      expect(primary('The vaccine works.', 'forum.example.org', [{ domain: 'example.org', weight: 0.95 }, { domain: 'forum.example.org', weight: 0.3 }])).to.equal(false);
    });

    it('scores authority by the most specific listed domain, as search ranks, whatever the order', () => {
      const list = [{ domain: 'example.org', weight: 0.9 }, { domain: 'blog.example.org', weight: 0.2 }];
      expect(authorityScore({ domain: 'blog.example.org', authority: null }, list)).to.equal(0.2);
      expect(authorityScore({ domain: 'news.blog.example.org', authority: null }, [...list].reverse())).to.equal(0.2);
      expect(authorityScore({ domain: 'www.example.org', authority: 0.4 }, list)).to.equal(0.9);
      // At equal specificity the earlier entry (the operator's list, before the subject's) wins.
      expect(authorityScore({ domain: 'example.org', authority: null }, [...list, { domain: 'example.org', weight: 0.5 }])).to.equal(0.9);
      expect(authorityScore({ domain: 'elsewhere.example.com', authority: 0.4 }, list)).to.equal(0.4);
      expect(authorityScore({ domain: 'data.census.gov', authority: null }, list)).to.equal(0.8);
      expect(authorityScore({ domain: 'elsewhere.example.com', authority: null }, list)).to.equal(0.5);
    });
  });
});
