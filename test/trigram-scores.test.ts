import { expect } from 'chai';
import { francAll } from 'franc-min';
import { trigramScorer } from '../src/text/trigram-scores.js';

/** The languages language.ts asks franc about. */
const ONLY = ['eng', 'spa', 'fra', 'deu', 'por', 'ita', 'nld', 'ces', 'pol', 'swe', 'tur', 'ron', 'hun', 'hrv', 'bos', 'ind', 'vie', 'zlm',
  'tgl', 'swh', 'rus', 'ukr', 'bel', 'bul', 'srp', 'kaz', 'uzn', 'azj', 'arb', 'pes', 'urd', 'pbu', 'hin', 'mar', 'npi'];

const TEXTS = [
  'The committee published its annual report on Tuesday, describing how the city plans to expand public transport, build new housing and reduce air pollution over the next decade.',
  'El comité publicó el martes su informe anual, en el que describe cómo la ciudad planea ampliar el transporte público, construir nuevas viviendas y reducir la contaminación del aire.',
  "Le comité a publié mardi son rapport annuel, qui décrit comment la ville prévoit d'étendre les transports publics et de réduire la pollution de l'air.",
  'Der Ausschuss veröffentlichte am Dienstag seinen Jahresbericht, in dem beschrieben wird, wie die Stadt den öffentlichen Nahverkehr ausbauen will.',
  'O comitê publicou na terça-feira o seu relatório anual, descrevendo como a cidade planeja expandir o transporte público.',
  'Komitet opublikował we wtorek swój roczny raport, opisując, jak miasto planuje rozbudować transport publiczny.',
  'Комитет во вторник опубликовал свой ежегодный доклад, в котором описывается, как город планирует расширить общественный транспорт.',
  'Комітет у вівторок оприлюднив свою щорічну доповідь про розвиток громадського транспорту міста.',
  'نشرت اللجنة تقريرها السنوي يوم الثلاثاء، والذي يصف كيف تخطط المدينة لتوسيع وسائل النقل العام وبناء مساكن جديدة.',
  'کمیته روز سه‌شنبه گزارش سالانه خود را منتشر کرد که در آن برنامه شهر برای گسترش حمل و نقل عمومی شرح داده شده است.',
  'समिति ने मंगलवार को अपनी वार्षिक रिपोर्ट प्रकाशित की, जिसमें बताया गया है कि शहर सार्वजनिक परिवहन का विस्तार कैसे करेगा।',
  '委员会周二发布了年度报告，介绍了该市计划在未来十年扩大公共交通、建设新住房并减少空气污染的情况。',
  '위원회는 화요일에 연례 보고서를 발표하고 시가 향후 10년 동안 대중교통을 확대할 계획을 설명했다.',
  'הוועדה פרסמה ביום שלישי את הדוח השנתי שלה, המתאר כיצד העירייה מתכננת להרחיב את התחבורה הציבורית.',
  'Η επιτροπή δημοσίευσε την Τρίτη την ετήσια έκθεσή της για τις δημόσιες συγκοινωνίες της πόλης.',
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.',
];

describe('trigram language scores', () => {
  const scores = trigramScorer(ONLY);

  it("are franc-min's francAll to the bit, on texts of every script and length", () => {
    const mixed = TEXTS.join(' ');
    const values = [
      ...TEXTS,
      mixed,
      // Past franc's 2,048-character cut, and a sample cut mid-word.
      `${TEXTS[0]} `.repeat(30),
      mixed.slice(17, 1234),
      // Too short to judge, no letters, digits and punctuation only, only whitespace.
      '', 'abc', 'Hello there', '1234567890 !!! ???', ' \n\t '.repeat(5),
      // Case, digits between letters, repeated trigrams.
      'ABC abc ABC abc 123abc456 abcabcabcabc',
    ];
    for (const text of TEXTS) for (const [from, to] of [[0, 12], [0, 40], [5, 90]] as const) values.push(text.slice(from, to));
    for (const value of values) expect(scores(value), JSON.stringify(value.slice(0, 60))).to.deep.equal(francAll(value, { only: ONLY }));
  });

  it('answer und, or the single language of a script, as franc does', () => {
    expect(scores('short')).to.deep.equal([['und', 1]]);
    expect(scores('!!!! ???? 1234')).to.deep.equal([['und', 1]]);
    // Hebrew is no candidate: franc-min has no model of it and it is not in the list.
    expect(scores(TEXTS[13]!)).to.deep.equal(francAll(TEXTS[13]!, { only: ONLY }));
    expect(trigramScorer([])(TEXTS[0]!)).to.deep.equal(francAll(TEXTS[0]!));
  });
});
