/**
 * The token count of max_tokens budgets, written from its documentation (docs/api.md, Token
 * budgets) rather than from the service's code: per text, one token per four characters once
 * each run of white space is one character, plus one per Chinese, Japanese or Korean character,
 * rounded up; an answer counts the sum over its texts.
 */
const CJK = /[\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}\p{Script_Extensions=Hangul}]/gu;

export function countAsDocumented(texts: readonly string[]): number {
  return texts.reduce((sum, text) => {
    const collapsed = text.replace(/\s+/gu, ' ');
    const cjk = collapsed.match(CJK)?.length ?? 0;
    const other = [...collapsed].length - cjk;
    return sum + Math.ceil(other / 4) + cjk;
  }, 0);
}
