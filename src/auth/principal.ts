export const SCOPES = ['search', 'extract', 'summarize', 'validate', 'cache', 'monitor'] as const;
export type Scope = (typeof SCOPES)[number];

/** Who is calling, as established by authentication. */
export interface Principal {
  /** Stable identifier used for rate limits, usage and audit (never the secret). */
  id: string;
  kind: 'master';
  scopes: ReadonlySet<Scope>;
  plan: string;
  rateLimitPerMinute: number;
}
