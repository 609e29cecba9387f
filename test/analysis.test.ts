import { expect } from 'chai';
import { analyze, analyzeQuery } from '../src/text/analyze.js';
import { sharedLanguage } from '../src/text/analysis-language.js';
import { splitPassages, splitSentences } from '../src/text/passages.js';
import { analysedSentences, analysedTerms, analysedTextsHeld, rememberAnalysedTexts } from '../src/text/analysed-texts.js';
import { forEachWord } from '../src/text/words.js';

/** Whether every term of the query is among the document's terms: the query finds the document. */
function finds(query: string, document: string, language: string | null): boolean {
  const terms = new Set(analyze(document, language));
  const queryTerms = analyzeQuery(query, language);
  return queryTerms.length > 0 && queryTerms.every((term) => terms.has(term));
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

describe('text analysis', () => {
  describe('stemming and stop words', () => {
    it('English', () => {
      expect(analyze('The runners were running quickly through the studies', 'en')).to.deep.equal(['runner', 'run', 'quick', 'studi']);
      expect(finds('study', 'Two studies were published.', 'en')).to.equal(true);
    });

    it('Spanish', () => {
      expect(analyze('Los médicos estaban trabajando en los hospitales', 'es')).to.deep.equal(['medic', 'trabaj', 'hospital']);
      expect(finds('hospital', 'Trabaja en los hospitales de la ciudad.', 'es')).to.equal(true);
    });

    it('French, with elisions cut off', () => {
      expect(analyze("L'homme qu'il a vu, les médecins étaient là", 'fr')).to.deep.equal(['homm', 'vu', 'médecin', 'là']);
      expect(finds('hommes', "Un texte sur l’homme.", 'fr')).to.equal(true);
    });

    it('German', () => {
      expect(analyze('Die Kinder spielten in den Gärten', 'de')).to.deep.equal(['kind', 'spielt', 'gart']);
      expect(finds('Garten', 'Er arbeitet in den Gärten.', 'de')).to.equal(true);
    });

    it('keeps stop words of a query that has nothing else', () => {
      expect(analyzeQuery('to be or not to be', 'en')).to.deep.equal(['to', 'be', 'or', 'not', 'to', 'be']);
      expect(analyzeQuery('the running dogs', 'en')).to.deep.equal(['run', 'dog']);
    });

    it('reads language tags and leaves unknown languages unstemmed', () => {
      expect(analyze('Running dogs', 'en-GB')).to.deep.equal(['run', 'dog']);
      expect(analyze('Running dogs', 'xx')).to.deep.equal(['running', 'dogs']);
    });

    it('analyses a short query in the language of the texts it is compared with when none is known', () => {
      const page = 'In a twelve-week study of 300 adults, regular aerobic exercise lowered resting blood pressure by 5 mmHg on average.';
      // Alone, the short query is too short to detect and stays unstemmed: it would never meet the page.
      expect(finds('exercise lowers blood pressure', page, null)).to.equal(false);
      const language = sharedLanguage(null, [page]);
      expect(language).to.equal('en');
      expect(finds('exercise lowers blood pressure', page, language)).to.equal(true);
      expect(sharedLanguage('de', [page])).to.equal('de');
    });
  });

  describe('German compounds', () => {
    const document = 'Die Krankenhausfinanzierung wurde reformiert. Der Versicherungsvertrag gilt ab heute beim Gesundheitsministerium.';

    it('finds a compound by its parts', () => {
      for (const query of ['Finanzierung', 'Krankenhaus', 'Krankenhäuser', 'Vertrag', 'Versicherung', 'Ministerium', 'Gesundheit']) {
        expect(finds(query, document, 'de'), query).to.equal(true);
      }
      expect(finds('Krankenhausfinanzierung', document, 'de')).to.equal(true);
    });

    it('adds a bounded number of parts, to nouns only, in documents only', () => {
      const terms = analyze('Krankenhausfinanzierung', 'de');
      expect(terms[0]).to.equal('krankenhausfinanzier');
      expect(terms.length).to.be.at.most(7);
      // Verbs and adjectives are lowercase in German: no fragments like "disk" from "diskutiert".
      expect(analyze('Sie haben lange diskutiert', 'de')).to.deep.equal(['lang', 'diskutiert']);
      expect(analyzeQuery('Finanzierung', 'de')).to.deep.equal(['finanzier']);
    });
  });

  describe('Chinese and Japanese', () => {
    it('finds a Japanese sentence by a query word', () => {
      const sentence = '東京大学の研究者が新しい薬を開発した。';
      for (const query of ['研究者', '研究', '大学', '開発']) expect(finds(query, sentence, null), query).to.equal(true);
      expect(finds('研究', sentence, 'ja')).to.equal(true);
    });

    it('finds a Chinese sentence by a query word', () => {
      const sentence = '北京大学的研究人员开发了一种新药。';
      for (const query of ['研究人员', '大学', '新药']) expect(finds(query, sentence, null), query).to.equal(true);
      expect(finds('研究', sentence, 'zh')).to.equal(true);
    });

    it('indexes the character bigrams of longer words', () => {
      expect(analyze('研究者', 'ja')).to.deep.equal(['研究者', '研究', '究者']);
    });
  });

  describe('normalisation', () => {
    it('applies NFKC', () => {
      expect(analyze('ＡＢＣ', null)).to.deep.equal(['abc']);
      expect(analyze('ﬁle １２３', null)).to.deep.equal(['file', '123']);
    });

    it('folds case, German ß and Turkish dotted I', () => {
      const forms = ['Straße', 'STRASSE', 'STRAẞE', 'strasse'].map((word) => analyze(word, 'de'));
      for (const terms of forms) expect(terms).to.deep.equal(forms[0]);
      expect(analyze('İSTANBUL Istanbul', null)).to.deep.equal(['istanbul', 'istanbul']);
      expect(analyze('don’t DON\'T', null)).to.deep.equal(["don't", "don't"]);
    });

    it('drops words longer than 64 characters', () => {
      expect(analyze(`${'a'.repeat(64)} ${'b'.repeat(65)} ok`, null)).to.deep.equal(['a'.repeat(64), 'ok']);
    });

    it('keeps numbers whole', () => {
      expect(analyze('In 2024, 3.14 of 1,000 cases', 'en')).to.deep.equal(['2024', '3.14', '1,000', 'case']);
    });

    it('finds the words Intl.Segmenter finds, also on the fast path for alphabetic scripts', () => {
      const samples = [
        "Don't panic: e.g. 3.14 or 1,000 well-known items (see §2.1) — l'homme, aujourd’hui!",
        'Die Straße_Nummer 12a; naïve café; ÉCOLE, ½ co-operate... end.',
      ];
      for (const text of samples) {
        const fast: string[] = [];
        forEachWord(text, 'en', (word) => fast.push(word));
        const segmenter = [...new Intl.Segmenter('en', { granularity: 'word' }).segment(text)].filter((s) => s.isWordLike).map((s) => s.segment);
        expect(fast).to.deep.equal(segmenter);
      }
    });
  });

  describe('remembered words and sentences', () => {
    it('gives a word the terms it had the first time, apart for documents, queries and languages', () => {
      const text = "Die Donaudampfschifffahrt fuhr l'été über den Fluss. The runners were running; 北京大学 4K";
      const first = { de: analyze(text, 'de'), fr: analyze(text, 'fr'), en: analyze(text, 'en'), query: analyzeQuery(text, 'de') };
      expect({ de: analyze(text, 'de'), fr: analyze(text, 'fr'), en: analyze(text, 'en'), query: analyzeQuery(text, 'de') }).to.deep.equal(first);
      // Documents add a compound's parts, queries do not; a query of stop words only keeps them.
      expect(first.de.length).to.be.greaterThan(first.query.length);
      expect(analyze('to be or not to be', 'en')).to.deep.equal([]);
      expect(analyzeQuery('to be or not to be', 'en')).to.deep.equal(['to', 'be', 'or', 'not', 'to', 'be']);
      expect(analyze('to be or not to be', 'en')).to.deep.equal([]);
    });

    it('analyses a passage sentence by sentence as splitSentences and analyze do', () => {
      const passage = 'Blue whales sing at low frequencies. Their songs travel across oceans! Do they? Yes.';
      const expected = { sentences: splitSentences(passage, 'en'), terms: splitSentences(passage, 'en').map((s) => analyze(s, 'en')) };
      expect(analysedSentences(passage, 'en')).to.deep.equal(expected);
      expect(analysedSentences(passage, 'en')).to.deep.equal(expected);
      expect(analysedSentences(passage, null).terms).to.deep.equal(splitSentences(passage, null).map((s) => analyze(s, null)));
    });

    describe('analysed texts remembered', () => {
      const initial = analysedTextsHeld().limit;
      afterEach(() => rememberAnalysedTexts(initial));
      const passage = (i: number): string => `Passage ${i} about whales singing at low frequencies across the oceans.`;

      it('gives the terms analyze gives, the same array again, apart for each language', () => {
        const text = 'The runners were running across the fields.';
        const en = analysedTerms(text, 'en');
        expect(en).to.deep.equal(analyze(text, 'en'));
        expect(analysedTerms(text, 'en')).to.equal(en);
        expect(analysedTerms(text, null)).to.deep.equal(analyze(text, null));
        expect(analysedTerms(text, null)).to.not.deep.equal(en);
      });

      it('keeps within its bound, the least recently used out first', () => {
        rememberAnalysedTexts(0);
        rememberAnalysedTexts(4000);
        const first = analysedTerms(passage(0), 'en');
        for (let i = 1; i < 100; i++) {
          analysedTerms(passage(i), 'en');
          // Used again and again: never the least recently used.
          expect(analysedTerms(passage(0), 'en')).to.equal(first);
        }
        const held = analysedTextsHeld();
        expect(held.bytes).to.be.at.most(4000).and.greaterThan(0);
        expect(held.texts).to.be.lessThan(50);
        const sentences = analysedSentences(passage(99), 'en');
        expect(analysedSentences(passage(99), 'en')).to.equal(sentences);
        expect(analysedTerms(passage(1), 'en')).to.deep.equal(analyze(passage(1), 'en')); // evicted long ago, analysed again
      });

      it('remembers nothing at 0, and answers the same', () => {
        rememberAnalysedTexts(0);
        expect(analysedTextsHeld()).to.include({ bytes: 0, texts: 0 });
        const terms = analysedTerms(passage(1), 'en');
        const again = analysedTerms(passage(1), 'en');
        expect(again).to.deep.equal(terms);
        expect(again).to.not.equal(terms);
        expect(analysedTextsHeld().bytes).to.equal(0);
      });
    });
  });

  describe('passages', () => {
    const sentence = (i: number): string => `Sentence number ${i} talks about the topic in about twelve words here.`;

    it('packs whole sentences into passages of 40 to 120 words', () => {
      const text = Array.from({ length: 60 }, (_, i) => sentence(i)).join(' ');
      const passages = splitPassages(text, 'en');
      expect(passages.join(' ')).to.equal(text);
      for (const passage of passages) {
        expect(passage).to.match(/^Sentence number \d+ .*here\.$/);
        expect(wordCount(passage)).to.be.within(40, 120);
      }
    });

    it('prefers paragraph breaks', () => {
      const paragraph = (from: number): string => Array.from({ length: 5 }, (_, i) => sentence(from + i)).join(' ');
      const text = `${paragraph(0)}\n\n${paragraph(5)}\n  \n${paragraph(10)}`;
      expect(splitPassages(text, 'en')).to.deep.equal([paragraph(0), paragraph(5), paragraph(10)]);
    });

    it('joins a short paragraph to the next', () => {
      const body = Array.from({ length: 5 }, (_, i) => sentence(i)).join(' ');
      expect(splitPassages(`Introduction\n\n${body}`, 'en')).to.deep.equal([`Introduction\n\n${body}`]);
    });

    it('splits a sentence only when it exceeds the hard cap, at word boundaries', () => {
      const long = `${Array.from({ length: 500 }, (_, i) => `word${i}`).join(' ')}.`;
      const passages = splitPassages(`${sentence(0)} ${long}`, 'en');
      expect(passages.join(' ')).to.equal(`${sentence(0)} ${long}`);
      // Pieces of at most 120 words; a short passage before them may take one in (hard cap 200).
      expect(passages.length).to.be.at.least(5);
      for (const passage of passages) expect(wordCount(passage)).to.be.at.most(200);
      const fits = Array.from({ length: 150 }, (_, i) => `word${i}`).join(' ');
      expect(splitPassages(`${fits}.`, 'en')).to.deep.equal([`${fits}.`]);
    });

    it('splits Chinese and Japanese by characters', () => {
      const japanese = '東京大学の研究者が新しい薬を開発したと発表した。'.repeat(40);
      const passages = splitPassages(japanese, 'ja');
      expect(passages.join('')).to.equal(japanese);
      for (const passage of passages) {
        expect(passage.endsWith('。')).to.equal(true);
        expect(passage.length).to.be.within(100, 300);
      }
    });

    it('is deterministic and linear on 5 MB', () => {
      const paragraph = Array.from({ length: 8 }, (_, i) => sentence(i)).join(' ');
      const text = Array.from({ length: Math.ceil(5_000_000 / paragraph.length) }, () => paragraph).join('\n\n');
      const started = performance.now();
      const passages = splitPassages(text, 'en');
      // Linear work takes about a second here, 2 s on a loaded machine; quadratic work would take minutes.
      expect(performance.now() - started).to.be.below(8000);
      expect(passages.length).to.be.greaterThan(5000);
      expect(splitPassages(text.slice(0, 10_000), 'en')).to.deep.equal(splitPassages(text.slice(0, 10_000), 'en'));
      const analysed = performance.now();
      expect(analyze(text, 'en').length).to.be.greaterThan(500_000);
      expect(performance.now() - analysed).to.be.below(16_000);
    });
  });
});
