/**
 * Stop words: the most frequent function words (articles, pronouns, prepositions,
 * conjunctions, auxiliary and modal verb forms) of the languages we stem. They carry little
 * meaning for ranking and make up a third to a half of running text, so dropping them keeps
 * posting lists short. The lists are written in folded form (lowercase, "ß" as "ss",
 * apostrophe "'") since they are matched after normalisation and before stemming.
 * Content words that merely happen to be frequent ("new", "year") are not stop words.
 */
const LISTS: Record<string, string> = {
  en: `a about above after again against all also am an and any are aren't as at be because been before
    being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't
    down during each either etc few for from further had hadn't has hasn't have haven't having he he's her
    here hers herself him himself his how however i i'm i've if in into is isn't it it's its itself just
    let's may me might more most must my myself neither no nor not of off on once only or other our ours
    ourselves out over own same shall she should so some such than that that's the their theirs them
    themselves then there there's these they they're this those though through thus to too under until
    up upon us very via was wasn't we we're were weren't what when where whether which while who whom
    whose why will with within without won't would wouldn't yet you you're your yours yourself yourselves`,
  es: `a al algo algunas algunos ante antes aquel aquella aquellas aquellos aqui así aunque cada como con
    contra cual cuales cuando cuya cuyo de del desde donde dos durante e el ella ellas ello ellos en entre
    era eran es esa esas ese eso esos esta estaba estaban estado estas este esto estos está están fue fueron
    ha había habían han has hasta hay he hemos la las le les lo los me mi mis mucho muchos muy más mí nada
    ni no nos nosotras nosotros nuestra nuestras nuestro nuestros o os otra otras otro otros para pero poco
    por porque pues que quien quienes qué se sea según ser si sido sin sino sobre son su sus sí también
    tanto te tiene tienen todo todos tras tu tus tú un una unas uno unos vosotros vuestra vuestro y ya yo
    él ésta éste`,
  fr: `a afin ai ainsi alors as au aucun aussi autre autres aux avaient avais avait avant avec avez avoir
    avons c car ce ceci cela celle celles celui cependant ces cet cette ceux chaque chez comme comment d
    dans de depuis des donc dont du elle elles en encore entre est et étaient était étant été être eu eux
    fait il ils j je jusqu l la le les leur leurs lorsque lui m ma mais me même mêmes mes moi moins mon n ne
    ni nos notre nous on ont or ou où par parce pas pendant peu peut peuvent plus pour pourquoi qu quand que
    quel quelle quelles quels qui s sa sans se selon sera ses si son sont sous sur t ta te tes toi ton tous
    tout toute toutes très tu un une vers vos votre vous y à ça`,
  de: `aber alle allem allen aller alles als also am an ander andere anderen anderer anderes auch auf aus
    bei beim bin bis bist bzw da dabei damit dann das dass dein deine dem den denen denn der deren des
    dessen dich die dies diese diesem diesen dieser dieses dir doch dort du durch ein eine einem einen
    einer eines er es etwa etwas euch euer eure für gegen gewesen habe haben hat hatte hatten hier ich ihm
    ihn ihnen ihr ihre ihrem ihren ihrer ihres im in ins ist jede jedem jeden jeder jedes jedoch jene jetzt
    kann kein keine keinem keinen keiner können könnte man mein meine mich mir mit muss musste müssen nach
    nicht nichts noch nun nur ob oder ohne schon sehr sei sein seine seinem seinen seiner seit sich sie
    sind so soll sollte sondern sowie um und uns unser unsere unter vom von vor war waren was weil welche
    welchem welchen welcher welches wenn wer werde werden wie wieder wir wird wo wurde wurden würde während
    zu zum zur zwar zwischen über`,
};

const STOP_WORDS = new Map<string, ReadonlySet<string>>(
  Object.entries(LISTS).map(([language, list]) => [language, new Set(list.split(/\s+/).filter(Boolean))]),
);

/** The stop words of a language (ISO 639-1), or null for a language without a list. */
export function stopWordsFor(language: string | null): ReadonlySet<string> | null {
  return language === null ? null : STOP_WORDS.get(language) ?? null;
}

/**
 * The words to tell function words by: the language's stop words, else English's (a text too
 * short for its language to be told, or a language without a list), the commonest case.
 */
export function functionWordsFor(language: string | null): ReadonlySet<string> {
  return stopWordsFor(language) ?? STOP_WORDS.get('en')!;
}
