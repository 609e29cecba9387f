import { expect } from 'chai';
import { createCpuPool } from '../src/pool/pool.js';
import { renderSummary } from '../src/search/summary-format.js';
import { extractiveSummary, type ExtractiveSummaryInput } from '../src/summary/extractive-summary.js';

const sources: ExtractiveSummaryInput['sources'] = [
  { n: 1, passages: [
    'Lithium-ion batteries degrade faster at high temperatures. The cathode loses capacity above 45 degrees. Our lab is in Berlin.',
  ] },
  { n: 2, passages: [
    'Cookies help this site work. Solid-state batteries replace the liquid electrolyte with a ceramic one, which resists heat better.',
  ] },
  { n: 3, passages: [
    'In tests, lithium-ion batteries degrade faster at high temperatures, the authors report. Subscribe to our newsletter today.',
  ] },
];

describe('extractive summary', () => {
  const summary = (input: Partial<ExtractiveSummaryInput> = {}) =>
    extractiveSummary({ query: 'battery degradation at high temperature', language: 'en', sources, maxSentences: 5, ...input });

  it('keeps the sentences about the query, each citing its source', () => {
    // "The cathode loses capacity…" shares no word with the query; cookies, newsletters and Berlin are not about it either.
    expect(summary()).to.deep.equal([
      { text: 'Lithium-ion batteries degrade faster at high temperatures.', citations: [1, 3] },
      { text: 'Solid-state batteries replace the liquid electrolyte with a ceramic one, which resists heat better.', citations: [2] },
    ]);
  });

  it('cites a second source that says the same thing instead of repeating it', () => {
    const repeated = summary().filter((s) => /degrade faster/.test(s.text));
    expect(repeated).to.have.length(1);
    expect(repeated[0]!.citations).to.deep.equal([1, 3]);
  });

  it('cites only the sources it was given and keeps to the sentence limit, in reading order', () => {
    const sentences = summary({ maxSentences: 1 });
    expect(sentences).to.deep.equal([{ text: 'Lithium-ion batteries degrade faster at high temperatures.', citations: [1, 3] }]);
    expect(summary({ sources: [sources[2]!, sources[1]!] }).map((s) => s.citations)).to.deep.equal([[3], [2]]);
  });

  it('says nothing when no sentence speaks about the query', () => {
    expect(summary({ query: 'volcanic eruptions in Iceland' })).to.deep.equal([]);
    expect(summary({ query: 'the of and' })).to.deep.equal([]);
  });

  it('without a query, takes the sentences about what the sources are mostly about', () => {
    const text = [
      'Glaciers in the Alps lost a tenth of their ice over two summers.',
      'The retreat of glaciers in the Alps exposes loose rock on the slopes.',
      'A local bakery sells croissants to hikers every morning.',
      'Scientists expect most small glaciers in the Alps to vanish this century.',
    ].join(' ');
    const sentences = summary({ query: '', sources: [{ n: 1, passages: [text] }], maxSentences: 2 });
    expect(sentences).to.have.length(2);
    for (const sentence of sentences) expect(sentence.text).to.match(/glaciers in the Alps/i);
  });

  it('takes whole sentences while they stay within maxWords', () => {
    const sentences = summary({ maxWords: 12 });
    expect(sentences).to.deep.equal([{ text: 'Lithium-ion batteries degrade faster at high temperatures.', citations: [1, 3] }]);
    expect(summary({ maxWords: 5 })).to.deep.equal([]);
  });

  it('works on Japanese text', () => {
    const sentences = extractiveSummary({
      query: '研究者 開発', language: 'ja', maxSentences: 3,
      sources: [{ n: 1, passages: ['東京大学の研究者が新しい薬を開発したと発表しました。天気は晴れです。'] }],
    });
    expect(sentences).to.deep.equal([{ text: '東京大学の研究者が新しい薬を開発したと発表しました。', citations: [1] }]);
  });

  it('renders the summary as text, Markdown, escaped HTML or structured JSON', () => {
    const cited = [{ text: 'Heat <speeds> "ageing".', citations: [1, 2] }];
    const urls = [{ url: 'https://a.example/x(1)' }, { url: 'https://b.example/"y"' }];
    expect(renderSummary(cited, 'text', urls)).to.equal('Heat <speeds> "ageing" [1][2].');
    expect(renderSummary(cited, 'markdown', urls)).to.equal('Heat <speeds> "ageing". [[1]](https://a.example/x%281%29)[[2]](https://b.example/"y")');
    expect(renderSummary(cited, 'html', urls)).to.equal(
      '<p>Heat &#60;speeds&#62; &#34;ageing&#34;.<sup><a href="https://a.example/x(1)">[1]</a></sup><sup><a href="https://b.example/&#34;y&#34;">[2]</a></sup></p>',
    );
    expect(renderSummary(cited, 'json', urls)).to.deep.equal({ sentences: [{ text: 'Heat <speeds> "ageing".', citations: [1, 2] }] });
  });

  it('runs as a task of the CPU pool', async () => {
    const pool = createCpuPool({ threads: 1, taskTimeoutMs: 10_000 });
    try {
      const input = { query: 'battery degradation at high temperature', language: 'en', sources, maxSentences: 5 };
      expect(await pool.run('extractiveSummary', input)).to.deep.equal(extractiveSummary(input));
    } finally {
      await pool.close();
    }
  });
});
