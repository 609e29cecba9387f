import { expect } from 'chai';
import { call, startTestService, type TestService } from './helpers/service.js';
import { html, startPageServer, type PageServer } from './helpers/page-server.js';

/**
 * Quality on claims the project has never seen: written for this test, not drawn from SciFact,
 * each checked against one local page that supports it, contradicts it or does not settle it.
 */
interface Case { claim: string; page: string; expected: 'SUPPORT' | 'CONTRADICT' | 'NOT_ENOUGH_INFO' }

const CASES: Case[] = [
  { claim: 'Regular aerobic exercise lowers resting blood pressure in adults.', expected: 'SUPPORT',
    page: 'In a twelve-week study of 300 adults, regular aerobic exercise lowered resting blood pressure by 5 mmHg on average.' },
  { claim: 'Smoking increases the risk of lung cancer.', expected: 'SUPPORT',
    page: 'Decades of cohort studies show that smoking increases the risk of lung cancer more than twentyfold.' },
  { claim: 'The Great Wall of China is visible from the Moon with the naked eye.', expected: 'CONTRADICT',
    page: 'Astronauts report that the Great Wall of China is not visible from the Moon with the naked eye.' },
  { claim: 'Vitamin C supplements reduce the duration of the common cold in adults.', expected: 'SUPPORT',
    page: 'A review of 29 trials found that vitamin C supplements reduced the duration of the common cold in adults by about 8 percent.' },
  { claim: 'Antibiotics are effective against viral infections such as influenza.', expected: 'CONTRADICT',
    page: 'Antibiotics are not effective against viral infections such as influenza; they act only on bacteria.' },
  { claim: 'Sea levels rose by 20 centimetres during the twentieth century.', expected: 'SUPPORT',
    page: 'Tide gauges show that sea levels rose by 20 centimetres during the twentieth century.' },
  { claim: 'Sea levels rose by 80 centimetres during the twentieth century.', expected: 'CONTRADICT',
    page: 'Tide gauges show that sea levels rose by 20 centimetres during the twentieth century.' },
  { claim: 'High sugar intake decreases the risk of tooth decay in children.', expected: 'CONTRADICT',
    page: 'Surveys of schoolchildren show that high sugar intake increases the risk of tooth decay in children.' },
  { claim: 'The Berlin Wall fell in 1989.', expected: 'SUPPORT',
    page: 'The Berlin Wall fell in 1989, after weeks of protests in East Germany.' },
  { claim: 'The Berlin Wall fell in 1979.', expected: 'CONTRADICT',
    page: 'The Berlin Wall fell in 1989, after weeks of protests in East Germany.' },
  { claim: 'Green tea consumption improves long-term memory in older adults.', expected: 'NOT_ENOUGH_INFO',
    page: 'Green tea is grown mainly in China and Japan, and its leaves are steamed or pan-fired soon after picking.' },
  { claim: 'Electric cars produce fewer lifetime emissions than petrol cars in Norway.', expected: 'NOT_ENOUGH_INFO',
    page: 'Norway has a long coastline, and most of its electricity comes from hydropower plants in the mountains.' },
];

/**
 * The least number of these claims the service must get right. When the test was written it got
 * 11 of 12, missing the reversed direction of the sugar claim (judged as support); all 12 since
 * a sentence that restates a claim takes its side by the cues (judge-claim.ts). Run alone, on an
 * empty index, it got 8: with no index language the short claim went unstemmed and the pages
 * were stemmed as English; since the claim is analysed in its pages' language, 12 either way.
 */
const MIN_CORRECT = 10;

describe('POST /v1/validate on claims never seen before', function () {
  this.timeout(120_000);
  let service: TestService;
  let pages: PageServer;

  /** One sentence as the whole page: too little text to tell its language by, which the page declares. */
  const SHORT_PAGES: Record<string, string> = {
    '/short/bones': 'Exercising regularly strengthened the bones of the volunteers.',
    '/short/colosseum': 'The Colosseum is an ancient amphitheatre located in the centre of Rome, Italy.',
  };

  before(async () => {
    pages = await startPageServer({
      ...Object.fromEntries(CASES.map((c, i) => [`/case-${i}`,
        html(`<!doctype html><html lang="en"><head><title>Case ${i}</title></head><body><article><p>${c.page}</p><p>The report was published by an independent research group.</p></article></body></html>`)])),
      ...Object.fromEntries(Object.entries(SHORT_PAGES).map(([path, text]) => [path, html(`<!doctype html><html lang="en"><head><title>Notes</title></head><body><article><p>${text}</p></article></body></html>`)])),
    });
    service = await startTestService();
  });
  after(async () => {
    await service?.close();
    await pages?.close();
  });

  it(`judges at least ${MIN_CORRECT} of ${CASES.length} correctly`, async () => {
    const answers = await Promise.all(CASES.map(async (c, i) => {
      const response = await call(service.url, '/v1/validate', { body: { claim: c.claim, sources: [`${pages.url}/case-${i}`], options: { confidence_threshold: 0 } } });
      expect(response.status, c.claim).to.equal(200);
      const result: string = response.json.data.validation_result;
      const label = ['VERIFIED', 'LIKELY_TRUE'].includes(result) ? 'SUPPORT' : ['FALSE', 'LIKELY_FALSE'].includes(result) ? 'CONTRADICT' : 'NOT_ENOUGH_INFO';
      return { claim: c.claim, expected: c.expected, label };
    }));
    const wrong = answers.filter((a) => a.label !== a.expected);
    expect(CASES.length - wrong.length, JSON.stringify(wrong, null, 1)).to.be.at.least(MIN_CORRECT);
  });

  it('reads a one-sentence page in the language it declares, stemmed as the claim is', async () => {
    // Unstemmed, "strengthens bones" never meets "strengthened the bones": no verdict.
    const response = await call(service.url, '/v1/validate', { body: { claim: 'Regular exercise strengthens bones.', sources: [`${pages.url}/short/bones`] } });
    expect(response.status).to.equal(200);
    expect(response.json.data.validation_result).to.be.oneOf(['VERIFIED', 'LIKELY_TRUE']);
  });

  it('finds a page that says the claim of another place false, and the claim of that place true', async () => {
    const judged = async (claim: string) => (await call(service.url, '/v1/validate', { body: { claim, sources: [`${pages.url}/short/colosseum`] } })).json.data;
    const athens = await judged('The Colosseum is located in Athens.');
    expect(athens.validation_result).to.be.oneOf(['FALSE', 'LIKELY_FALSE']);
    expect(athens.evidence.contradicting).to.have.length(1);
    expect((await judged('The Colosseum is located in Rome.')).validation_result).to.be.oneOf(['VERIFIED', 'LIKELY_TRUE']);
  });
});
