import { Element, Text, type ParentNode } from 'domhandler';
import { MODIFIERS, NEVER_CONTENT, isHidden, words } from './hints.js';
import { resolveLink } from './references.js';

/**
 * The page's links outside its main content, each with the part of the page it sits in, so a
 * crawler or an agent can follow navigation, or related pages, apart from the article's own
 * references. Hidden parts and never-shown elements are left out, as from the content.
 */
export type LinkLocation = 'nav' | 'header' | 'footer' | 'aside' | 'related' | 'comments' | 'body';

export interface LocatedLink {
  url: string;
  text: string;
  location: LinkLocation;
}

/** At most this many: a page of ten thousand links is a sitemap, and the answer must stay bounded. */
export const MAX_OTHER_LINKS = 2000;
const TEXT_LIMIT = 300;

/**
 * A link nested in several marked parts is placed by the most telling one: a related box in a
 * sidebar is "related", a menu in a footer "footer", a menu in a header or sidebar "nav".
 */
const PRIORITY: Record<LinkLocation, number> = { body: 0, aside: 1, header: 2, nav: 3, footer: 4, comments: 5, related: 6 };

const TAGS = new Map<string, LinkLocation>([['nav', 'nav'], ['menu', 'nav'], ['header', 'header'], ['footer', 'footer'], ['aside', 'aside']]);
const ROLES = new Map<string, LinkLocation>([
  ['navigation', 'nav'], ['menu', 'nav'], ['menubar', 'nav'], ['banner', 'header'], ['contentinfo', 'footer'], ['complementary', 'aside'],
]);
const WORDS = new Map<string, LinkLocation>();
const place = (location: LinkLocation, list: string): void => {
  for (const word of list.split(/\s+/)) if (word) WORDS.set(word, location);
};
place('nav', 'nav navbar navigation menu menubar breadcrumb breadcrumbs pagination pager toc crumbs');
place('header', 'header masthead topbar');
place('footer', 'footer colophon');
place('aside', 'sidebar rail widget widgets');
place('related', 'related recommended recommendations recirculation trending popular mostread outbrain taboola teasers');
place('comments', 'comment comments commentlist disqus replies');
const PREFIXES: Array<[string, LinkLocation]> = [['comment', 'comments'], ['related', 'related'], ['footer', 'footer'], ['navigation', 'nav'], ['sidebar', 'aside'], ['breadcrumb', 'nav']];

/** The part of the page an element marks, from its tag, role, class and id; null when it marks none. */
function locationOf(element: Element, inArticle: boolean): LinkLocation | null {
  const role = element.attribs.role?.toLowerCase();
  const byRole = role === undefined ? undefined : ROLES.get(role);
  if (byRole) return byRole;
  let best: LinkLocation | null = TAGS.get(element.name) ?? null;
  for (const name of [element.attribs.id ?? '', ...(element.attribs.class ?? '').split(/\s+/)]) {
    const nameWords = words(name);
    if (nameWords.length === 0 || nameWords.some((word) => MODIFIERS.has(word))) continue;
    for (const word of nameWords) {
      const found = WORDS.get(word) ?? PREFIXES.find(([prefix]) => word.startsWith(prefix))?.[1];
      if (found && (best === null || PRIORITY[found] > PRIORITY[best])) best = found;
    }
  }
  // An article's own header and footer (headline, byline, tags) are not the page's.
  return inArticle && (best === 'header' || best === 'footer') ? null : best;
}

/**
 * The links under `root` whose targets are not in `mainUrls`, one per URL (the first anchor
 * text winning), in document order, at most MAX_OTHER_LINKS.
 */
export function otherLinks(root: ParentNode, base: string, mainUrls: ReadonlySet<string>): LocatedLink[] {
  const found = new Map<string, LocatedLink>();
  const pending: Array<{ node: ParentNode; location: LinkLocation; inArticle: boolean }> = [{ node: root, location: 'body', inArticle: false }];
  while (pending.length > 0 && found.size < MAX_OTHER_LINKS) {
    const { node, location, inArticle } = pending.pop()!;
    for (let i = node.children.length - 1; i >= 0; i--) {
      const child = node.children[i]!;
      if (!(child instanceof Element) || NEVER_CONTENT.has(child.name) || isHidden(child)) continue;
      const marked = locationOf(child, inArticle);
      const here = marked !== null && PRIORITY[marked] > PRIORITY[location] ? marked : location;
      pending.push({ node: child, location: here, inArticle: inArticle || child.name === 'article' || child.name === 'main' });
    }
    if (node instanceof Element && node.name === 'a' && node.attribs.href !== undefined) {
      const url = resolveLink(node.attribs.href, base);
      if (url !== null && !mainUrls.has(url) && !found.has(url)) found.set(url, { url, text: anchorText(node), location });
    }
  }
  return [...found.values()];
}

/** An anchor's text, or the alternative text of its picture (a logo linking home). */
function anchorText(anchor: Element): string {
  let text = '';
  let alt = '';
  const pending: Array<Element | Text> = [anchor];
  while (pending.length > 0 && text.length < TEXT_LIMIT) {
    const node = pending.pop()!;
    if (node instanceof Text) {
      text += node.data;
      continue;
    }
    if (node.name === 'img' && !alt) alt = node.attribs.alt ?? '';
    for (let i = node.children.length - 1; i >= 0; i--) {
      const child = node.children[i]!;
      if (child instanceof Text || (child instanceof Element && !NEVER_CONTENT.has(child.name))) pending.push(child);
    }
  }
  return (text.trim() ? text : alt).replace(/\s+/g, ' ').trim().slice(0, TEXT_LIMIT);
}
