import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { ApiFailure } from './api.js';

/** Where the console lives; every page is a path under it, served the same index.html. */
export const BASE = '/console';

/** Moves to another page of the console without reloading it. */
export function navigate(path: string): void {
  if (location.pathname + location.search === path) return;
  history.pushState(null, '', path);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** A link inside the console: a real <a href> (keyboard, middle click), followed without a reload. */
export function Link(props: { href: string; children: ComponentChildren; current?: boolean }) {
  return (
    <a
      href={props.href}
      aria-current={props.current ? 'page' : undefined}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}

/** Whether a page of this load has been shown: the first starts at the top of the document as any page does. */
let pageShown = false;

/**
 * A page's heading. When the console moves to another page without a reload, focus moves to it,
 * so that keyboard and screen-reader users start there rather than on the link they left.
 */
export function PageTitle(props: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  // A layout effect: focus moves in the same commit that shows the heading, not a frame later,
  // so nothing typed in between lands on the link that was left.
  useLayoutEffect(() => {
    if (pageShown) ref.current?.focus();
    pageShown = true;
  }, []);
  return <h1 tabIndex={-1} ref={ref}>{props.children}</h1>;
}

/** An API failure as people read it: the message, and the code to look up in the docs. */
export function ErrorNotice(props: { error: unknown }) {
  if (!props.error) return null;
  const failure = props.error instanceof ApiFailure ? props.error : null;
  return (
    <p class="error" role="alert">
      {failure ? <><strong>{failure.code}</strong>: {failure.message}</> : String((props.error as Error).message ?? props.error)}
    </p>
  );
}

export function Notice(props: { children: ComponentChildren }) {
  return <p class="notice" role="status">{props.children}</p>;
}

/** A timestamp in the reader's locale, the ISO value kept for machines. */
export function Time(props: { value: string | null | undefined }) {
  if (!props.value) return <span>–</span>;
  return <time dateTime={props.value}>{new Date(props.value).toLocaleString()}</time>;
}

/** The value of a datetime-local input as ISO 8601 (the input has no zone: the reader's own). */
export function localInputToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

export function milliseconds(seconds: number): string {
  return `${Math.round(seconds * 1000)} ms`;
}

export function percent(share: number): string {
  return `${(share * 100).toFixed(1)} %`;
}
