/**
 * What a rendered page may request, decided before anything is fetched: http(s) only, and not
 * the kinds of subresource RENDER_BLOCK_RESOURCES refuses (by default images, fonts and media,
 * which cost bandwidth and memory and add no text). Where a request that passes may connect is
 * decided after, by the fetcher's SSRF guard (src/fetch/relay-request.ts), which also counts
 * as a block here.
 */
import type { RenderResourceKind } from '../config.js';

/** Why a request of a rendered page was refused: the label of sev_render_blocked_requests_total and the keys of render.blocked. */
export type BlockReason = 'private_address' | 'scheme' | 'resource_type';

export const BLOCK_REASONS: readonly BlockReason[] = ['private_address', 'scheme', 'resource_type'];

export type RequestVerdict = { allowed: true } | { allowed: false; reason: BlockReason };

/**
 * @param resourceType the browser's kind of request (Playwright's request.resourceType(): document,
 *   script, xhr, fetch, image, font, media, stylesheet …).
 */
export function judgeRequest(url: string, resourceType: string, blockedKinds: readonly RenderResourceKind[]): RequestVerdict {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    return { allowed: false, reason: 'scheme' };
  }
  if (protocol !== 'http:' && protocol !== 'https:') return { allowed: false, reason: 'scheme' };
  if ((blockedKinds as readonly string[]).includes(resourceType)) return { allowed: false, reason: 'resource_type' };
  return { allowed: true };
}

/** Blocked requests of one rendering, by reason. */
export class BlockCount {
  readonly byReason: Record<BlockReason, number> = { private_address: 0, scheme: 0, resource_type: 0 };

  constructor(private readonly onBlock?: (reason: BlockReason) => void) {}

  add(reason: BlockReason): void {
    this.byReason[reason]++;
    this.onBlock?.(reason);
  }

  get total(): number {
    return BLOCK_REASONS.reduce((sum, reason) => sum + this.byReason[reason], 0);
  }
}
