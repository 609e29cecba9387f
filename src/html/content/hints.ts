import type { Element } from 'domhandler';

/**
 * What an element's markup (tag, class, id, role, itemprop) says about it, before any text is
 * looked at. Class and id values are split into words ("article-body__text" → article, body,
 * text; "relatedStories" → related, stories) and matched word by word, which avoids the
 * classic substring accidents ("shadow" is not an ad, "thead" is not a header).
 *
 * Boilerplate words come in strengths. Comment words are the most reliable; footer,
 * breadcrumb or share rarely sit on the article; others are often layout vocabulary on the
 * very wrappers of the article ("l-sidebar-fixed", "Page-ad-margins", "header-style-2",
 * "article-overlay"). Weaker hints are only believed while believing them leaves an article
 * (see container.ts).
 */
export const enum Hint {
  None = 0,
  /** Markup that usually wraps the article (article, post-body, itemprop=articleBody). */
  Content = 1,
  /** Probably furniture, unless it wraps the article. */
  MaybeBoilerplate = 2,
  /** Furniture or secondary text: navigation, footers, share bars, related links. */
  Boilerplate = 3,
  /** Reader comments: prose, often longer than the article, and the most reliably named. */
  Comments = 4,
}

/** Elements never part of the readable page. */
export const NEVER_CONTENT = new Set([
  'script', 'style', 'noscript', 'template', 'svg', 'math', 'canvas', 'iframe', 'frame', 'frameset', 'object',
  'embed', 'applet', 'audio', 'video', 'source', 'track', 'map', 'head', 'title', 'meta', 'link', 'base',
  'button', 'input', 'select', 'textarea', 'option', 'datalist', 'output', 'progress', 'meter', 'dialog',
]);

/** Sectioning tags for page furniture: unlike class names, authors rarely put them on the article. */
const BOILERPLATE_TAGS = new Set(['nav', 'footer', 'menu', 'aside', 'header']);

const WORD_HINTS = new Map<string, Hint>();
const define = (hint: Hint, list: string): void => {
  for (const word of list.split(/\s+/)) if (word) WORD_HINTS.set(word, hint);
};
define(Hint.Comments, 'comment comments commentlist disqus respond replies reply discussion');
define(Hint.Boilerplate, `
  footer breadcrumb breadcrumbs pagination pager nav navbar navigation menu menubar
  share sharing sharebar social sociable follow newsletter newsletters subscribe subscription signup
  related recommended recommendations recommendation recirculation trending popular mostread
  outbrain taboola zergnet cookie cookies consent gdpr byline dateline copyright disclaimer login
  sponsored promoted upsell bio`);
define(Hint.MaybeBoilerplate, `
  sidebar rail aside widget widgets masthead header topbar toolbar print email author authors timestamp
  meta metadata tagline search caption credit credits jump toc links icons buttons tools utility
  actions flyout dropdown ad ads advert advertisement advertising adslot adunit sponsor promo promotion
  teaser teasers overlay modal popup banner`);
// Words a boilerplate prefix would catch but that name content ("commentary" is an opinion piece).
define(Hint.None, 'commentary commenter shared socialism subscriber subscribers');
define(Hint.Content, `
  article articlebody story storybody post entry content body text main blog prose richtext markdown
  single hentry paragraph paragraphs`);

/**
 * Words that mark furniture only as the last word of a class name ("post-tags", "categories"):
 * as a first word they usually carry a slug ("tag-politics", "category-news" on WordPress
 * article wrappers).
 */
const TRAILING_WORDS = new Map<string, Hint>([
  ['tag', Hint.Boilerplate], ['tags', Hint.Boilerplate], ['category', Hint.Boilerplate], ['categories', Hint.Boilerplate],
  ['topics', Hint.Boilerplate], ['keywords', Hint.Boilerplate],
]);

/**
 * A class name with one of these words describes a state or a style of the page ("no-sidebars",
 * "has-section-nav", "header-style-2", "modal-enabled", "non-ad-column"), not what the element is.
 */
export const MODIFIERS = new Set([
  'no', 'non', 'not', 'has', 'have', 'with', 'without', 'w', 'is', 'enable', 'enabled', 'disabled', 'use',
  'show', 'style', 'type', 'layout', 'lay', 'theme', 'template', 'color', 'font', 'size', 'width', 'loaded',
  'fixed', 'sticky', 'first', 'second', 'one', 'two', 'left', 'right', 'full', 'boxed', 'dark', 'light',
]);

/** An embedded social post (a quoted tweet, "social-media-embed") is part of the article, not a share bar. */
const EMBED = new Set(['embed', 'embeds', 'embedded']);
const SOCIAL = new Set(['social', 'share', 'sharing']);

/** Prefixes for words glued without separators (adsbygoogle, newsletterSignup, commentlist). */
const PREFIXES: Array<[string, Hint]> = [
  ['comment', Hint.Comments], ['newsletter', Hint.Boilerplate], ['subscribe', Hint.Boilerplate], ['outbrain', Hint.Boilerplate],
  ['taboola', Hint.Boilerplate], ['related', Hint.Boilerplate], ['recommend', Hint.Boilerplate], ['cookie', Hint.Boilerplate],
  ['breadcrumb', Hint.Boilerplate], ['navigation', Hint.Boilerplate], ['sharebar', Hint.Boilerplate], ['sharing', Hint.Boilerplate],
  ['footer', Hint.Boilerplate], ['byline', Hint.Boilerplate], ['sidebar', Hint.MaybeBoilerplate], ['advert', Hint.MaybeBoilerplate],
  ['adsby', Hint.MaybeBoilerplate], ['sponsor', Hint.MaybeBoilerplate], ['promo', Hint.MaybeBoilerplate],
];

const ROLE_HINTS = new Map<string, Hint>([
  ['navigation', Hint.Boilerplate], ['contentinfo', Hint.Boilerplate], ['search', Hint.Boilerplate], ['menu', Hint.Boilerplate],
  ['menubar', Hint.Boilerplate], ['toolbar', Hint.Boilerplate], ['dialog', Hint.Boilerplate], ['alertdialog', Hint.Boilerplate],
  ['banner', Hint.MaybeBoilerplate], ['complementary', Hint.MaybeBoilerplate], ['main', Hint.Content], ['article', Hint.Content],
]);

/** Splits `relatedStories__item-2` into related, stories, item, 2 (lower case). */
export function words(value: string): string[] {
  return value
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

function wordHint(word: string, last: boolean): Hint {
  const known = WORD_HINTS.get(word) ?? (last ? TRAILING_WORDS.get(word) : undefined);
  if (known !== undefined) return known;
  for (const [prefix, hint] of PREFIXES) if (word.startsWith(prefix)) return hint;
  return Hint.None;
}

/**
 * Class names repeat across elements and pages, so their hints are remembered; the memo is
 * emptied when it grows large, which bounds its memory in a long-lived worker.
 */
const nameHints = new Map<string, Hint>();
const MAX_REMEMBERED = 20_000;

function nameHint(name: string): Hint {
  let hint = nameHints.get(name);
  if (hint === undefined) {
    if (nameHints.size >= MAX_REMEMBERED) nameHints.clear();
    hint = classifyName(name);
    nameHints.set(name, hint);
  }
  return hint;
}

/** The strongest hint among the words of one class name or id (content loses to boilerplate). */
function classifyName(name: string): Hint {
  const nameWords = words(name);
  if (nameWords.some((word) => MODIFIERS.has(word))) return Hint.None;
  const embedded = nameWords.some((word) => EMBED.has(word));
  let hint = Hint.None;
  for (let i = 0; i < nameWords.length; i++) {
    const word = nameWords[i]!;
    if (!(embedded && SOCIAL.has(word))) hint = Math.max(hint, wordHint(word, i === nameWords.length - 1));
  }
  return hint;
}

/**
 * The hint of one element from its own markup. itemprop=articleBody and roles are explicit
 * and win; then the tag; then class names and id, the strongest word deciding, so that
 * "article-comments" are comments and "post-share" a share bar. The <body> and <html> carry
 * page-level classes ("single-post sidebar-right") and get no hint.
 */
export function elementHint(element: Element): Hint {
  if (element.name === 'body' || element.name === 'html') return Hint.None;
  const itemprop = element.attribs.itemprop;
  if (itemprop !== undefined && /\barticleBody\b/i.test(itemprop)) return Hint.Content;
  const role = element.attribs.role?.toLowerCase();
  const roleHint = role === undefined ? undefined : ROLE_HINTS.get(role);
  if (roleHint !== undefined) return roleHint;
  if (BOILERPLATE_TAGS.has(element.name)) return Hint.Boilerplate;
  if (element.name === 'article' || element.name === 'main') return Hint.Content;
  const { class: classes, id } = element.attribs;
  let hint = id ? nameHint(id) : Hint.None;
  if (classes) for (const name of classes.split(/\s+/)) if (name) hint = Math.max(hint, nameHint(name));
  return hint;
}

/** Hidden by the author: such text is not shown to readers, so it is not content either. */
export function isHidden(element: Element): boolean {
  const { attribs } = element;
  if (attribs.hidden !== undefined || attribs['aria-hidden'] === 'true') return true;
  const style = attribs.style;
  return style !== undefined && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}
