import { expect } from 'chai';
import { html, startPageServer, type PageServer } from './helpers/page-server.js';
import { call, startTestService, type TestService } from './helpers/service.js';
import { expectSchema } from './helpers/response-schema.js';
import { countAsDocumented } from './helpers/token-count.js';

const sentences = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `The ${topic} study reports finding number ${i + 1}, measured over three seasons in the northern valleys.`).join(' ');

/** An article of nested sections, long paragraphs, a list and a table: every kind of place to cut. */
const ARTICLE = `<!doctype html><html lang="en"><head><title>Field notes on alpine meadows</title>
<meta name="description" content="What a decade of fieldwork found in alpine meadows."></head><body><article>
<h1>Field notes on alpine meadows</h1>
<p>${sentences('introductory', 4)}</p>
<h2>Flowers</h2>
<p>${sentences('flower', 12)}</p>
<h3>Gentians</h3>
<p>${sentences('gentian', 3)}</p>
<ul>${Array.from({ length: 8 }, (_, i) => `<li>Gentian site ${i + 1} lies above two thousand metres on a south-facing slope.</li>`).join('')}</ul>
<h2>Insects</h2>
<table><thead><tr><th>Insect</th><th>Count</th></tr></thead><tbody>
${Array.from({ length: 10 }, (_, i) => `<tr><td>Bumblebee species ${i + 1}</td><td>${(i + 1) * 17}</td></tr>`).join('')}
</tbody></table>
<p>${sentences('insect', 5)} See the <a href="/data">data</a>.</p>
</article></body></html>`;

describe('POST /v1/extract: token budgets and chunks', () => {
  let service: TestService;
  let site: PageServer;

  before(async () => {
    site = await startPageServer({ '/meadows': html(ARTICLE) });
    service = await startTestService();
  });
  after(async () => {
    await service.close();
    await site.close();
  });

  const extract = (body: Record<string, unknown>) => call(service.url, '/v1/extract', { body: { url: `${site.url}/meadows`, ...body } });

  it('returns the content as chunks within chunking.max_tokens, each with its heading path', async () => {
    const whole = await extract({ format: 'text' });
    const response = await extract({ format: 'markdown', chunking: { max_tokens: 120 } });
    expect(response.status, JSON.stringify(response.json)).to.equal(200);
    const { data } = response.json;
    expectSchema('extract.response', data);
    expect(data).not.to.have.property('content');
    const chunks = data.chunks as { content: string; heading_path: string[]; tokens: number }[];
    expect(chunks.length).to.be.greaterThan(5);
    for (const chunk of chunks) {
      expect(chunk.tokens).to.equal(countAsDocumented([chunk.content])).and.to.be.within(1, 120);
    }
    const paths = chunks.map((c) => c.heading_path.join(' > '));
    // The page's title heading is its title (metadata), not content: the first chunk sits under no heading.
    expect(paths[0]).to.equal('');
    expect(paths).to.include('Flowers > Gentians');
    expect(paths.at(-1)).to.equal('Insects');
    // A section's chunks stay under it: the gentian sites are all under Gentians, the long flower paragraph is cut between its sentences.
    for (const chunk of chunks.filter((c) => c.content.includes('Gentian site'))) expect(chunk.heading_path.at(-1)).to.equal('Gentians');
    const flowerChunks = chunks.filter((c) => c.heading_path.at(-1) === 'Flowers');
    expect(flowerChunks.length).to.be.greaterThan(1);
    for (const chunk of flowerChunks) expect(chunk.content).to.match(/\.$/);
    // Nothing is lost: every sentence of the text format is in some chunk.
    const all = chunks.map((c) => c.content).join('\n');
    for (const sentence of (whole.json.data.content as string).split(/(?<=\.)\s+|\n+/).filter((s) => s.length > 20)) {
      expect(all.replace(/\s+/g, ' '), sentence).to.include(sentence.replace(/\s+/g, ' ').replace(/^- /, ''));
    }
    // A table cut in pieces repeats its header row in each.
    const tables = chunks.filter((c) => c.content.includes('Bumblebee'));
    for (const chunk of tables.filter((c) => c.content.startsWith('|'))) expect(chunk.content).to.match(/^\| Insect \| Count \|/);

    const json = await extract({ format: 'json', chunking: { max_tokens: 120 } });
    expectSchema('extract.response', json.json.data);
    const flowers = json.json.data.chunks.find((c: { heading_path: string[] }) => c.heading_path.join() === 'Flowers');
    expect(flowers.content[0]).to.deep.equal({ type: 'heading', level: 2, text: 'Flowers' });
  });

  it('cuts the content to max_tokens at a sentence, counting metadata, content, images and links as documented', async () => {
    const whole = await extract({ format: 'text', extract_links: true, max_tokens: 100_000 });
    expect(whole.json.data.truncated).to.equal(false);
    const wholeTokens = answerTokens(whole.json.data);
    expect(whole.json.data.budget).to.deep.equal({ max_tokens: 100_000, tokens: wholeTokens, omitted_tokens: 0 });

    for (const budget of [300, 60]) {
      const cut = await extract({ format: 'text', extract_links: true, max_tokens: budget });
      expect(cut.status, JSON.stringify(cut.json)).to.equal(200);
      expectSchema('extract.response', cut.json.data);
      const { data } = cut.json;
      expect(data.truncated).to.equal(true);
      const tokens = answerTokens(data);
      expect(tokens).to.be.at.most(budget);
      expect(data.budget).to.deep.equal({ max_tokens: budget, tokens, omitted_tokens: wholeTokens - tokens });
      // The content is the whole content's beginning, ending at a sentence.
      expect(whole.json.data.content.startsWith(data.content), data.content).to.equal(true);
      if (data.content !== '') expect(data.content).to.match(/\.$/);
    }
    const small = await extract({ format: 'text', max_tokens: 60 });
    expect(small.json.data.metadata.title).to.equal('Field notes on alpine meadows');
  });

  it('keeps whole chunks from the first within max_tokens, and sizes stored extractions too', async () => {
    const chunked = await extract({ format: 'markdown', chunking: { max_tokens: 100 }, include_metadata: false });
    const counts = (chunked.json.data.chunks as { heading_path: string[]; tokens: number }[]).map((c) => c.tokens + countAsDocumented(c.heading_path));
    const budget = counts[0]! + counts[1]! + counts[2]! + 1;
    const cut = await extract({ format: 'markdown', chunking: { max_tokens: 100 }, include_metadata: false, max_tokens: budget, options: { max_age: 3600 } });
    expect(cut.json.data.cached).to.equal(true);
    expect(cut.json.data.chunks).to.deep.equal(chunked.json.data.chunks.slice(0, 3));
    expect(cut.json.data.truncated).to.equal(true);
    expect(cut.json.data.budget.tokens).to.equal(budget - 1);
  });
});

/** An extraction's count as docs/api.md (Token budgets) states it for extract. */
function answerTokens(data: Record<string, any>): number {
  const metadata = Object.values(data.metadata ?? {}).filter((v): v is string => typeof v === 'string');
  const content = data.chunks ? data.chunks.flatMap((c: { content: string; heading_path: string[] }) => [c.content, ...c.heading_path]) : [data.content];
  const images = (data.images ?? []).flatMap((i: Record<string, string>) => [i.url, i.alt, i.caption]);
  const links = (data.links ?? []).flatMap((l: Record<string, string>) => [l.url, l.text]);
  return countAsDocumented([...metadata, ...content, ...images, ...links]);
}
