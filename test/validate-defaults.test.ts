import { expect } from 'chai';
import { call, startTestService, type TestService } from './helpers/service.js';
import { html, startPageServer, type PageServer } from './helpers/page-server.js';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';

/** The default confidence_threshold, as the request schema fills it in (docs/validation.md documents it). */
const DEFAULT_CONFIDENCE_THRESHOLD: number = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'schemas', 'validate.request.json'), 'utf8'))
  .properties.options.properties.confidence_threshold.default;

/**
 * What a client that sets no options is told, over real HTTP against pages served on 127.0.0.1,
 * on an empty index (so the claim's terms weigh alike, as a fresh deployment weighs them): a
 * short popular claim against one short passage that clearly supports it gets a verdict of its
 * side, one that clearly contradicts it (a negation, a denial of the belief, the opposite
 * direction, another quantity, another date) a verdict of the other side, and one on a neighbouring topic UNVERIFIED. The
 * claims and passages were written for this test (none is from the out-of-domain bench set).
 */
type Side = 'SUPPORT' | 'CONTRADICT' | 'NOT_ENOUGH_INFO';
interface Case { name: string; claim: string; passage: string; expected: Side }

const CASES: Case[] = [
  { name: 'support, close wording', expected: 'SUPPORT',
    claim: 'Drinking water before meals helps adults lose weight.',
    passage: 'In a twelve-week trial, adults who drank water before meals lost more weight than those who did not.' },
  { name: 'support, a figure', expected: 'SUPPORT',
    claim: 'The Eiffel Tower is 330 metres tall.',
    passage: 'The Eiffel Tower in Paris is 330 metres tall, counting its antennas.' },
  { name: 'support, paraphrase', expected: 'SUPPORT',
    claim: 'Wearing seat belts reduces deaths in car crashes.',
    passage: 'Seat belts cut the number of deaths in car crashes by about half, road safety agencies report.' },
  { name: 'contradiction, negation', expected: 'CONTRADICT',
    claim: 'Cracking your knuckles causes arthritis.',
    passage: 'Cracking your knuckles does not cause arthritis, several long-term studies have found.' },
  { name: 'contradiction, the belief called a myth', expected: 'CONTRADICT',
    claim: 'Shaving makes hair grow back thicker.',
    passage: 'Dermatologists say the idea that shaving makes hair grow back thicker is a myth.' },
  { name: 'contradiction, the claim said to be refuted', expected: 'CONTRADICT',
    claim: 'Sugar makes children hyperactive.',
    passage: 'The claim that sugar makes children hyperactive has been refuted by a dozen controlled trials.' },
  { name: 'contradiction, a belief reported and then answered', expected: 'CONTRADICT',
    claim: 'Eating late at night makes you gain weight.',
    passage: 'Many people believe that eating late at night makes you gain weight, but studies that control for total calories have found no such effect.' },
  { name: 'no side, a belief only reported', expected: 'NOT_ENOUGH_INFO',
    claim: 'Bulls are enraged by the colour red.',
    passage: 'It is widely believed that bulls are enraged by the colour red.' },
  { name: 'contradiction, a trend said to have stopped', expected: 'CONTRADICT',
    claim: 'Global temperatures stopped rising after 1998.',
    passage: 'Global temperatures have continued to rise since 1998, satellite and surface records show.' },
  { name: 'contradiction, a word that excludes the claim\'s', expected: 'CONTRADICT',
    claim: 'Dolphins are cold-blooded.',
    passage: 'Dolphins are warm-blooded and breathe air through a blowhole.' },
  { name: 'contradiction, another cause named', expected: 'CONTRADICT',
    claim: 'Most stomach ulcers are caused by stress.',
    passage: 'Most stomach ulcers are caused by infection with the bacterium Helicobacter pylori or by long-term use of painkillers such as aspirin.' },
  { name: 'contradiction, another of the same kind by its letter', expected: 'CONTRADICT',
    claim: 'Scurvy is caused by a lack of vitamin D.',
    passage: 'Scurvy is caused by a lack of vitamin C in the diet.' },
  { name: 'support, the plain words in the passage\'s technical terms', expected: 'SUPPORT',
    claim: 'Paracetamol relieves pain after surgery.',
    passage: 'Intravenous acetaminophen significantly reduced postoperative pain scores compared with placebo.' },
  { name: 'contradiction, a negation that reaches its direction word through words of effect', expected: 'CONTRADICT',
    claim: 'Garlic lowers blood pressure.',
    passage: 'In this trial, garlic did not result in a significantly lower blood pressure than placebo.' },
  { name: 'contradiction, opposite direction', expected: 'CONTRADICT',
    claim: 'Regular physical activity increases the risk of heart disease.',
    passage: 'Regular physical activity lowers the risk of heart disease in adults of every age.' },
  { name: 'contradiction, another quantity', expected: 'CONTRADICT',
    claim: 'The Eiffel Tower is 150 metres tall.',
    passage: 'The Eiffel Tower in Paris is 330 metres tall, counting its antennas.' },
  { name: 'contradiction, another date', expected: 'CONTRADICT',
    claim: 'The first Moon landing took place in 1972.',
    passage: 'The first Moon landing took place in 1969, when Apollo 11 touched down on the Sea of Tranquility.' },
  { name: 'neighbouring topic', expected: 'NOT_ENOUGH_INFO',
    claim: 'Eating carrots improves night vision.',
    passage: 'Carrots were first grown in Persia, and the orange varieties known today were bred in the Netherlands.' },
  { name: 'neighbouring topic, same subject', expected: 'NOT_ENOUGH_INFO',
    claim: 'Honey never spoils when stored in a sealed jar.',
    passage: 'Honey is made by bees from the nectar of flowers and is mostly fructose and glucose.' },
];

const SIDE: Record<string, Side> = {
  VERIFIED: 'SUPPORT', LIKELY_TRUE: 'SUPPORT', FALSE: 'CONTRADICT', LIKELY_FALSE: 'CONTRADICT', UNVERIFIED: 'NOT_ENOUGH_INFO',
};

function page(title: string, text: string): string {
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body><article><p>${text}</p></article></body></html>`;
}

describe('POST /v1/validate with default options', function () {
  this.timeout(120_000);
  let service: TestService;
  let pages: PageServer;

  before(async () => {
    pages = await startPageServer({
      ...Object.fromEntries(CASES.map((c, i) => [`/case-${i}`, html(page(`Case ${i}`, c.passage))])),
      '/hedged': html(page('Hedged', 'Some researchers have suggested that drinking water before meals might possibly help some adults lose weight, but the evidence is unclear.')),
      ...Object.fromEntries([0, 1, 2, 3].map((i) => [`/other-${i}`, html(page(`Other ${i}`, [
        'The Great Barrier Reef lies off the coast of Queensland in Australia.',
        'Coral reefs are built by colonies of tiny animals called polyps.',
        'Many reef fish change colour as they grow older.',
        'Tourism on the reef brings billions of dollars to the regional economy each year.',
      ][i]!))])),
      '/faq': html('<!doctype html><html lang="en"><head><title>Coffee and health: questions</title></head><body><article>'
        + '<h2>Coffee and cancer</h2><p>Does coffee cause cancer? No. Large studies have found that drinking coffee does not raise the risk of cancer.</p>'
        + '</article></body></html>'),
      '/bleaching': html(page('Bleaching', 'Rising ocean temperatures cause mass coral bleaching on the Great Barrier Reef.')),
    });
    service = await startTestService();
  });
  after(async () => {
    await service?.close();
    await pages?.close();
  });

  const validate = (body: Record<string, unknown>) => call(service.url, '/v1/validate', { body });

  for (const [i, c] of CASES.entries()) {
    it(`${c.name}: ${c.expected === 'NOT_ENOUGH_INFO' ? 'UNVERIFIED' : `a verdict of the ${c.expected === 'SUPPORT' ? 'supporting' : 'contradicting'} side`}`, async () => {
      const response = await validate({ claim: c.claim, sources: [`${pages.url}/case-${i}`] });
      expect(response.status, JSON.stringify(response.json)).to.equal(200);
      const { data } = response.json;
      expect(SIDE[data.validation_result], `${c.claim} → ${data.validation_result} (${data.confidence_score}): ${data.fact_check_summary.explanation}`).to.equal(c.expected);
      if (c.expected !== 'NOT_ENOUGH_INFO') {
        expect(data.confidence_score).to.be.at.least(DEFAULT_CONFIDENCE_THRESHOLD);
        const side = c.expected === 'SUPPORT' ? data.evidence.supporting : data.evidence.contradicting;
        expect(side.map((e: { source: string }) => e.source)).to.deep.equal([`${pages.url}/case-${i}`]);
      }
    });
  }

  it(`applies the documented default threshold (${DEFAULT_CONFIDENCE_THRESHOLD}): the same answer as asking for it, a verdict under a higher one becomes UNVERIFIED`, async () => {
    const source = `${pages.url}/case-0`;
    const byDefault = (await validate({ claim: CASES[0]!.claim, sources: [source] })).json.data;
    const asked = (await validate({ claim: CASES[0]!.claim, sources: [source], options: { confidence_threshold: DEFAULT_CONFIDENCE_THRESHOLD } })).json.data;
    expect(byDefault.validation_result).to.equal(asked.validation_result);
    expect(byDefault.confidence_score).to.equal(asked.confidence_score);
    expect(['VERIFIED', 'LIKELY_TRUE']).to.include(byDefault.validation_result);
    // The verdict's confidence is under 1: asking for more than it turns the answer into UNVERIFIED, the evidence still listed.
    const above = Math.min(1, byDefault.confidence_score + 0.01);
    const strict = (await validate({ claim: CASES[0]!.claim, sources: [source], options: { confidence_threshold: above } })).json.data;
    expect(strict.validation_result).to.equal('UNVERIFIED');
    expect(strict.evidence.supporting.map((e: { source: string }) => e.source)).to.deep.equal([source]);
  });

  it('answers UNVERIFIED for a passage that only says the claim might hold', async () => {
    const response = await validate({ claim: CASES[0]!.claim, sources: [`${pages.url}/hedged`] });
    expect(response.status).to.equal(200);
    expect(response.json.data.validation_result, JSON.stringify(response.json.data)).to.equal('UNVERIFIED');
  });

  it('reads a question that restates the claim as no evidence, and the answer under it as the verdict', async () => {
    const response = await validate({ claim: 'Coffee causes cancer.', sources: [`${pages.url}/faq`] });
    expect(response.status).to.equal(200);
    const { data } = response.json;
    expect(['FALSE', 'LIKELY_FALSE'], JSON.stringify(data)).to.include(data.validation_result);
    expect(data.evidence.supporting).to.deep.equal([]);
  });

  it('lets the fourth or fifth source the client names decide', async () => {
    const claim = 'Rising ocean temperatures cause coral bleaching on the Great Barrier Reef.';
    for (const at of [3, 4]) {
      const sources = [0, 1, 2, 3].map((i) => `${pages.url}/other-${i}`);
      sources.splice(at, 0, `${pages.url}/bleaching`);
      const response = await validate({ claim, sources: sources.slice(0, 5) });
      expect(response.status).to.equal(200);
      const { data } = response.json;
      expect(['VERIFIED', 'LIKELY_TRUE'], `deciding source at place ${at + 1}: ${JSON.stringify(data)}`).to.include(data.validation_result);
      expect(data.evidence.supporting.map((e: { source: string }) => e.source)).to.deep.equal([`${pages.url}/bleaching`]);
    }
  });
});
