/**
 * Recognises bot-protection interstitials: the page a CDN or anti-bot service serves instead of
 * the content (a JavaScript challenge, a captcha, an access-denied notice). Extracting from one
 * would return the interstitial's text as if it were the page; reporting it as a plain HTTP error
 * would hide why the page is out of reach.
 *
 * Only the first kilobytes are examined, and a normal page must never be flagged: a marker that
 * also occurs on ordinary pages (a captcha widget in a comment form, an article quoting a
 * challenge text) counts only on the statuses interstitials use or on a page with little else.
 */

/** Statuses interstitials are served with; the body of other error responses need not be read. */
export const INTERSTITIAL_STATUSES: ReadonlySet<number> = new Set([403, 405, 429, 503]);

interface Signature {
  readonly reason: string;
  readonly pattern: RegExp;
}

// Markup only interstitials carry. Cloudflare also injects /cdn-cgi/challenge-platform/scripts/jsd
// into ordinary pages, hence the narrower /h/ path (the challenge orchestration) here.
const DEFINITE: readonly Signature[] = [
  {
    reason: 'Cloudflare challenge',
    pattern: /<title>\s*(?:just a moment\.\.\.|attention required! \| cloudflare)\s*<\/title>|window\._cf_chl_opt|\/cdn-cgi\/challenge-platform\/h\/|cf-browser-verification|__cf_chl_/i,
  },
  { reason: 'DDoS-Guard challenge', pattern: /<title>\s*ddos-guard\s*<\/title>|\/\.well-known\/ddos-guard\/js-challenge/i },
  { reason: 'Sucuri firewall', pattern: /sucuri_cloudproxy_js|<title>\s*sucuri website firewall/i },
  { reason: 'PerimeterX captcha', pattern: /id=["']px-captcha["']|captcha\.px-cdn\.net/i },
  { reason: 'DataDome captcha', pattern: /var dd=\{'rt':|captcha-delivery\.com\/c\.js/i },
  { reason: 'Akamai bot protection', pattern: /\/_sec\/cp_challenge\/|sec-if-cpt-container/i },
  { reason: 'Imperva bot protection', pattern: /incapsula incident id/i },
  { reason: 'AWS WAF challenge', pattern: /window\.gokuProps\s*=|awsWafCookieDomainList/i },
];

// Markers and phrases that ordinary pages may contain too (an article about DDoS-Guard, a
// contact form with reCAPTCHA): evidence only on an interstitial status or a near-empty page.
const CIRCUMSTANTIAL: readonly Signature[] = [
  { reason: 'Cloudflare challenge', pattern: /enable javascript and cookies to continue/i },
  { reason: 'DDoS-Guard challenge', pattern: /ddos-guard/i },
  { reason: 'Sucuri firewall', pattern: /cloudproxy@sucuri\.net|sucuri website firewall/i },
  { reason: 'DataDome captcha', pattern: /captcha-delivery\.com/i },
  { reason: 'PerimeterX captcha', pattern: /press (?:&amp;|&) hold/i },
  // Akamai writes the dots of its error reference as &#46;.
  { reason: 'Akamai bot protection', pattern: /errors(?:\.|&#46;)edgesuite(?:\.|&#46;)net|reference&#32;&#35;[\da-f]+(?:\.|&#46;)[\da-f]+/i },
  { reason: 'Imperva bot protection', pattern: /_incapsula_resource/i },
  {
    reason: 'browser check',
    pattern: /checking (?:if the site connection is secure|your browser before accessing)|verify(?:ing)? (?:that )?you are (?:a )?human|unusual traffic from your computer network/i,
  },
  {
    reason: 'captcha',
    pattern: /hcaptcha\.com\/1\/api\.js|(?:google\.com|recaptcha\.net)\/recaptcha\/|challenges\.cloudflare\.com\/turnstile|class=["'][^"']*\b(?:h-captcha|g-recaptcha|cf-turnstile)\b/i,
  },
];

// Interstitials say a sentence or two; a real page, even a short one, says more.
const LITTLE_TEXT = 600;

/**
 * Any marker of a list at all, in one pass over the page: an ordinary page has none, and eight
 * case-insensitive scans of its 64 KB cost the worker's event loop more than the rest of the
 * check. Which signature matched is then looked up in the list's order, as before.
 */
function anyOf(signatures: readonly Signature[]): RegExp {
  return new RegExp(signatures.map((s) => `(?:${s.pattern.source})`).join('|'), 'i');
}
const ANY_DEFINITE = anyOf(DEFINITE);
const ANY_CIRCUMSTANTIAL = anyOf(CIRCUMSTANTIAL);

/**
 * @param headers response headers, names in lower case.
 * @param bodyStart the start of the body, decoded as latin1 (all markers are ASCII).
 * @returns "blocked: <what>" for an interstitial, undefined for anything else.
 */
export function detectChallenge(status: number, headers: Readonly<Record<string, string>>, bodyStart: string): string | undefined {
  // Cloudflare labels its challenge responses so, whatever the status and body.
  if (headers['cf-mitigated']?.toLowerCase() === 'challenge') return 'blocked: Cloudflare challenge';
  const definite = ANY_DEFINITE.test(bodyStart) ? DEFINITE.find((s) => s.pattern.test(bodyStart)) : undefined;
  if (definite) return `blocked: ${definite.reason}`;
  // Other error pages (404, 500 …) are not interstitials, whatever they embed.
  const suspect = INTERSTITIAL_STATUSES.has(status) || (status < 400 && hasLittleElse(bodyStart));
  if (!suspect) return undefined;
  const circumstantial = ANY_CIRCUMSTANTIAL.test(bodyStart) ? CIRCUMSTANTIAL.find((s) => s.pattern.test(bodyStart)) : undefined;
  return circumstantial ? `blocked: ${circumstantial.reason}` : undefined;
}

/**
 * A complete page (its end is in view) whose visible text is a sentence or two at most. The text
 * is looked at first: an ordinary page's first paragraphs decide it, where finding out whether
 * its end is in view scans the whole window.
 */
function hasLittleElse(bodyStart: string): boolean {
  if (visibleText(bodyStart, LITTLE_TEXT).replace(/\s+/g, ' ').trim().length >= LITTLE_TEXT) return false;
  return /<\/(?:body|html)\s*>/i.test(bodyStart);
}

const RAW_TEXT_ELEMENT = /^<(script|style|noscript|template)[\s>/]/i;
/** Where each raw-text element ends, found from a position (lastIndex) in any case. */
const RAW_TEXT_END: Readonly<Record<string, RegExp>> = {
  script: /<\/script/gi, style: /<\/style/gi, noscript: /<\/noscript/gi, template: /<\/template/gi,
};

/**
 * The text between tags, without comments and script/style contents. A scan rather than regular
 * expressions: those take quadratic time on a page of unclosed "<script" or "<!--", which
 * anyone can serve us. The scan stops once the text holds `enough` characters besides
 * whitespace, which collapsing whitespace cannot shorten: an ordinary page, whose first
 * paragraphs already say more than an interstitial, is decided without reading all of its
 * 64 KB (that took 2 ms of the worker's event loop per page). Only the few characters after
 * each '<' are looked at in lower case, not a lower-case copy of the whole window.
 */
function visibleText(html: string, enough: number): string {
  let text = '';
  let solid = 0;
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    if (open < 0) return text + html.slice(at);
    const between = html.slice(at, open);
    text += `${between} `;
    solid += between.replace(/\s+/g, '').length;
    if (solid >= enough) return text;
    const rawText = RAW_TEXT_ELEMENT.exec(html.slice(open, open + 10))?.[1]?.toLowerCase();
    if (html.startsWith('<!--', open)) at = after(html, '-->', open + 4);
    else if (rawText) at = after(html, '>', afterEnd(html, RAW_TEXT_END[rawText]!, open));
    else at = after(html, '>', open + 1);
  }
  return text;
}

/** The index just past the next `token` from `from`, or the end when there is none. */
function after(text: string, token: string, from: number): number {
  const found = text.indexOf(token, from);
  return found < 0 ? text.length : found + token.length;
}

/** The index just past the next match of the global `end` from `from`, or the end when there is none. */
function afterEnd(text: string, end: RegExp, from: number): number {
  end.lastIndex = from;
  const found = end.exec(text);
  return found ? found.index + found[0].length : text.length;
}
