import { expect } from 'chai';
import { detectLanguage, normalizeLanguageTag } from '../src/text/language.js';

const TEXT = {
  en: 'The committee published its annual report on Tuesday, describing how the city plans to expand public transport, build new housing and reduce air pollution over the next decade.',
  es: 'El comité publicó el martes su informe anual, en el que describe cómo la ciudad planea ampliar el transporte público, construir nuevas viviendas y reducir la contaminación del aire durante la próxima década.',
  fr: "Le comité a publié mardi son rapport annuel, qui décrit comment la ville prévoit d'étendre les transports publics, de construire de nouveaux logements et de réduire la pollution de l'air au cours de la prochaine décennie.",
  de: 'Der Ausschuss veröffentlichte am Dienstag seinen Jahresbericht, in dem beschrieben wird, wie die Stadt in den nächsten zehn Jahren den öffentlichen Nahverkehr ausbauen, neue Wohnungen bauen und die Luftverschmutzung verringern will.',
  pt: 'O comitê publicou na terça-feira o seu relatório anual, descrevendo como a cidade planeja expandir o transporte público, construir novas moradias e reduzir a poluição do ar na próxima década.',
  it: "Il comitato ha pubblicato martedì la sua relazione annuale, descrivendo come la città intende ampliare il trasporto pubblico, costruire nuove abitazioni e ridurre l'inquinamento atmosferico nel prossimo decennio.",
  ja: '委員会は火曜日に年次報告書を発表し、市が今後十年間で公共交通機関を拡充し、新しい住宅を建設し、大気汚染を減らす計画について説明した。',
  zh: '委员会周二发布了年度报告，介绍了该市计划在未来十年扩大公共交通、建设新住房并减少空气污染的情况。',
  ko: '위원회는 화요일에 연례 보고서를 발표하고 시가 향후 10년 동안 대중교통을 확대하고 새로운 주택을 건설할 계획을 설명했다.',
  ru: 'Комитет во вторник опубликовал свой ежегодный доклад, в котором описывается, как город планирует расширить общественный транспорт и построить новое жильё.',
  ar: 'نشرت اللجنة تقريرها السنوي يوم الثلاثاء، والذي يصف كيف تخطط المدينة لتوسيع وسائل النقل العام وبناء مساكن جديدة.',
  he: 'הוועדה פרסמה ביום שלישי את הדוח השנתי שלה, המתאר כיצד העירייה מתכננת להרחיב את התחבורה הציבורית ולבנות דיור חדש.',
};

describe('language detection from text', () => {
  for (const language of ['en', 'es', 'fr', 'de', 'pt', 'it', 'ja', 'zh', 'ko', 'ru', 'ar', 'he'] as const) {
    it(`detects ${language} without markup`, () => {
      expect(detectLanguage(TEXT[language], null)).to.equal(language);
    });
  }

  it('tells Japanese from Chinese by kana, even in a Han-heavy sample', () => {
    expect(detectLanguage('東京都知事選挙の開票結果が発表された', null)).to.equal('ja');
    expect(detectLanguage('东京都知事选举的开票结果已经公布', null)).to.equal('zh');
  });

  it('answers null for no text or too little of it', () => {
    expect(detectLanguage('', null)).to.equal(null);
    expect(detectLanguage('OK 42 — !', null)).to.equal(null);
  });

  it('reads only a bounded sample of long text', () => {
    const long = `${TEXT.de} `.repeat(20) + `${TEXT.en} `.repeat(500);
    expect(detectLanguage(long, null)).to.equal('de');
  });
});

describe('language from markup and text together', () => {
  it('keeps the markup when the text agrees or is too short to judge', () => {
    expect(detectLanguage(TEXT.en, 'en-US')).to.equal('en');
    expect(detectLanguage('Hello there', 'fr')).to.equal('fr');
    expect(detectLanguage('', 'de-AT')).to.equal('de');
  });

  it('lets the text win when the markup names a language of another script', () => {
    expect(detectLanguage(TEXT.ja, 'en')).to.equal('ja');
    expect(detectLanguage(TEXT.ru, 'en')).to.equal('ru');
    expect(detectLanguage(TEXT.en, 'zh-CN')).to.equal('en');
  });

  it('lets a long text win over a same-script markup language it clearly rules out', () => {
    expect(detectLanguage(`${TEXT.es} ${TEXT.es}`, 'en')).to.equal('es');
    expect(detectLanguage(`${TEXT.de} ${TEXT.de}`, 'fr')).to.equal('de');
  });

  it('keeps a same-script markup language on short text and for languages the model does not know', () => {
    expect(detectLanguage(TEXT.es, 'en')).to.equal('en'); // under 300 letters
    const danish = 'Udvalget offentliggjorde tirsdag sin årsrapport, som beskriver, hvordan byen i løbet af det næste årti vil udbygge den offentlige transport, bygge nye boliger og mindske luftforureningen i hele kommunen.';
    expect(detectLanguage(`${danish} ${danish}`, 'da')).to.equal('da');
  });

  it('keeps Japanese markup on a short kana-less sample, as Japanese headlines can be', () => {
    expect(detectLanguage('東京都知事選挙開票結果発表', 'ja')).to.equal('ja');
  });
});

describe('language tags from markup', () => {
  it('reduces tags to the primary language', () => {
    expect(normalizeLanguageTag('en-US')).to.equal('en');
    expect(normalizeLanguageTag('pt_BR')).to.equal('pt'); // og:locale style
    expect(normalizeLanguageTag(' zh-Hant-TW ')).to.equal('zh');
    expect(normalizeLanguageTag('fr, en')).to.equal('fr'); // Content-Language lists
  });

  it('maps three-letter and deprecated codes', () => {
    expect(normalizeLanguageTag('eng')).to.equal('en');
    expect(normalizeLanguageTag('ger')).to.equal('de');
    expect(normalizeLanguageTag('iw')).to.equal('he');
  });

  it('rejects values that name no language', () => {
    for (const value of [null, undefined, '', 'und', 'mul', 'x-default', 'english', '12']) expect(normalizeLanguageTag(value), String(value)).to.equal(null);
  });
});
