import type { AppContext } from '../context.js';
import type { CompatAnswer } from '../../compat/compat-answer.js';

/** Header naming, one value each, what a compatibility endpoint accepted but did not honour. */
export const COMPAT_WARNING_HEADER = 'X-Compat-Warning';

/** A compatibility endpoint's answer: the vendor's body itself (no envelope) and its warnings. */
export function respondAsVendor(ctx: AppContext, answer: CompatAnswer<unknown>): void {
  if (answer.warnings.length > 0) ctx.set(COMPAT_WARNING_HEADER, answer.warnings.map((w) => w.replace(/[^\x20-\x7e]/g, '?')));
  ctx.status = 200;
  ctx.body = answer.body;
}
