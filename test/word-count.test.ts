import { expect } from 'chai';
import { countWords, measureWords, readingTime } from '../src/html/metadata/word-count.js';

/** Word-like segments as Intl.Segmenter finds them on the whole text: the reference. */
function segmenterWords(text: string): number {
  let words = 0;
  for (const { isWordLike } of new Intl.Segmenter(undefined, { granularity: 'word' }).segment(text)) if (isWordLike) words++;
  return words;
}

describe('word count', () => {
  it('counts English words by segmentation, not spaces', () => {
    expect(countWords('The quick brown fox — jumps!  Over the lazy dog.')).to.equal(9);
    // Contractions, abbreviations, decimals and grouped numbers are one word each; hyphens split.
    expect(countWords("Don't panic: e.g. 3.14 or 1,000 well-known items")).to.equal(9);
    expect(countWords('')).to.equal(0);
    expect(countWords(' \n\t ... — !!! ')).to.equal(0);
  });

  it('counts Japanese by segmented words', () => {
    const text = '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。';
    expect(text.includes(' ')).to.equal(false);
    // 吾輩|は|猫|で|ある|名前|は|まだ|無い|どこ|で|生れ|たか|とんと|見当|が|つ|か|ぬ
    expect(countWords(text, 'ja')).to.equal(19);
  });

  it('counts Chinese by segmented words', () => {
    // 我们|今天|去|北京|大学|参观|天气|很好|大家|都很|高兴
    expect(countWords('我们今天去北京大学参观。天气很好，大家都很高兴。', 'zh')).to.equal(11);
  });

  it('counts mixed Japanese and Latin text, Thai and Korean like the segmenter does', () => {
    const samples = [
      '東京で開催されたJavaScriptカンファレンスに3,000人が参加した。',
      'ภาษาไทยเป็นภาษาที่ไม่มีช่องว่างระหว่างคำ',
      '서울은 한국의 수도입니다. TV일반 1년 아침마당’마저',
      "Ünïcödé naïve café — Привет, мир! مرحبا بالعالم שלום עולם foo_bar _ ½ 18:00:00 x:y",
    ];
    for (const text of samples) expect(countWords(text), text).to.equal(segmenterWords(text));
  });

  it('stays exact on long unspaced text fed to the segmenter in pieces', () => {
    const sentence = '今日は良い天気ですね。';
    const long = sentence.repeat(500); // far beyond one piece
    expect(countWords(long, 'ja')).to.equal(500 * countWords(sentence, 'ja'));
    const unpunctuated = '東京大学'.repeat(300); // no punctuation to cut at
    expect(countWords(unpunctuated, 'ja')).to.be.within(segmenterWords(unpunctuated) - 3, segmenterWords(unpunctuated) + 3);
  });

  it('accepts any language tag, malformed ones included', () => {
    expect(countWords('今日は良い天気', 'en_US')).to.equal(countWords('今日は良い天気', 'ja'));
    expect(countWords('今日は良い天気', 'qq')).to.equal(countWords('今日は良い天気', null));
  });

  it('separates Han and kana characters from words read by words', () => {
    expect(measureWords('東京でJavaScriptを学ぶ', 'ja')).to.deep.equal({ words: 5, cjkCharacters: 6, otherWords: 1 });
    expect(measureWords('Hello world', 'en')).to.deep.equal({ words: 2, cjkCharacters: 0, otherWords: 2 });
  });
});

describe('reading time', () => {
  const words = (n: number) => ({ words: n, cjkCharacters: 0, otherWords: n });
  const cjk = (characters: number) => ({ words: Math.ceil(characters / 2), cjkCharacters: characters, otherWords: 0 });

  it('reads 238 words a minute, at least a minute for any text', () => {
    expect(readingTime(words(0), 'en')).to.equal('0 min');
    expect(readingTime(words(10), 'en')).to.equal('1 min');
    expect(readingTime(words(238 * 4), 'en')).to.equal('4 min');
    expect(readingTime(words(238 * 10 + 100), 'de')).to.equal('10 min');
  });

  it('reads Japanese at 357 and Chinese at 255 characters a minute', () => {
    expect(readingTime(cjk(357 * 5), 'ja')).to.equal('5 min');
    expect(readingTime(cjk(255 * 5), 'zh')).to.equal('5 min');
    expect(readingTime(cjk(357 * 5), 'zh')).to.equal('7 min');
  });

  it('adds up mixed text and writes hours', () => {
    expect(readingTime({ words: 600, cjkCharacters: 357 * 2, otherWords: 238 * 2 }, 'ja')).to.equal('4 min');
    expect(readingTime(words(238 * 60), 'en')).to.equal('1 h');
    expect(readingTime(words(238 * 75), 'en')).to.equal('1 h 15 min');
  });

  it('measures a real text end to end', () => {
    const text = 'word '.repeat(1000);
    expect(readingTime(measureWords(text, 'en'), 'en')).to.equal('4 min');
  });
});
