import { compile, selectAll } from 'css-select';
import type { AnyNode, Element, ParentNode } from 'domhandler';
import { removeElement } from 'domutils';

/**
 * options.include_selectors and options.exclude_selectors: CSS selectors (css-select, on the
 * tree dom.ts builds) that shape the page before main content is looked for. Excluded elements
 * leave the page; included ones, when given, are the only place content is looked for.
 */
export interface PageSelectors {
  include?: readonly string[];
  exclude?: readonly string[];
}

/** A selector css-select cannot compile; `parameter` names it as the request does (options.include_selectors[2]). */
export class SelectorError extends Error {
  constructor(readonly parameter: string, readonly selector: string, readonly reason: string) {
    super(`${parameter} is not a valid CSS selector: ${reason}`);
    this.name = 'SelectorError';
  }
}

/** @throws SelectorError for the first selector of either list that does not compile. */
export function checkSelectors(selectors: PageSelectors): void {
  for (const [name, list] of [['include_selectors', selectors.include], ['exclude_selectors', selectors.exclude]] as const) {
    (list ?? []).forEach((selector, i) => {
      try {
        compile(selector);
      } catch (error) {
        throw new SelectorError(`options.${name}[${i}]`, selector, error instanceof Error ? error.message : String(error));
      }
    });
  }
}

/**
 * Removes the excluded elements from `root` and returns the included ones, outermost only and in
 * document order; null when no include selector was given (the whole root is the page).
 * @throws SelectorError as checkSelectors.
 */
export function applySelectors(root: ParentNode, selectors: PageSelectors): Element[] | null {
  checkSelectors(selectors);
  if (selectors.exclude?.length) {
    for (const element of selectAll(selectors.exclude.join(', '), root)) removeElement(element);
  }
  if (!selectors.include?.length) return null;
  // selectAll returns matches in document order; one inside another is already in its subtree.
  const matched = selectAll<AnyNode, Element>(selectors.include.join(', '), root);
  const chosen = new Set<AnyNode>(matched);
  return matched.filter((element) => {
    for (let parent = element.parent; parent; parent = parent.parent) if (chosen.has(parent)) return false;
    return true;
  });
}
