/**
 * The weight an authority list (SEARCH_AUTHORITY, subject lists) gives a host: that of the most
 * specific entry covering it (a domain covers its subdomains), so "blog.example.com 0.2" wins
 * over "example.com 0.9" for the blog whatever the order; at equal specificity the earlier entry
 * wins. Undefined when no entry covers the host.
 */
export function listedAuthority(host: string, list: readonly { domain: string; weight: number }[]): number | undefined {
  const name = host.toLowerCase().replace(/\.$/, '');
  let best: { length: number; weight: number } | undefined;
  for (const entry of list) {
    const domain = entry.domain.toLowerCase().replace(/\.$/, '');
    if ((name === domain || name.endsWith(`.${domain}`)) && (!best || domain.length > best.length)) best = { length: domain.length, weight: entry.weight };
  }
  return best?.weight;
}
