/** Host names as the index keeps them: lower case, without a trailing dot or "www." prefix distinctions. */
export function hostOf(url: string): string {
  return new URL(url).hostname.toLowerCase().replace(/\.$/, '');
}

/** com.example.www. — a domain's subdomains all start with its own reversed form. */
export function reverseDomain(domain: string): string {
  return `${domain.toLowerCase().replace(/\.$/, '').split('.').reverse().join('.')}.`;
}

/** The LIKE pattern of index_documents.domain_reversed that matches the domain and its subdomains. */
export function domainPattern(domain: string): string {
  return `${reverseDomain(domain).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** True when host is domain itself or one of its subdomains. */
export function withinDomain(host: string, domain: string): boolean {
  return reverseDomain(host).startsWith(reverseDomain(domain));
}
