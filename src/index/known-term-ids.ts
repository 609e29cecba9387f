/**
 * Term ids this process has seen, per mode: a term's id never changes (rows of index_terms are
 * added, never renumbered, and deleted only with the whole mode, its statistics row included),
 * so a write need not look up again the terms it has met before. Nearly every term of a new page
 * is a known one, and their lookup was the costliest statement left of a small write. Only ids
 * read from the table or committed by this process's own writes are kept: an id inserted by a
 * transaction that rolled back never is.
 */
export class KnownTermIds {
  private readonly byMode = new Map<string, Map<string, number>>();
  private size = 0;

  /** `max` ids at most (about 100 bytes each), the oldest forgotten first. */
  constructor(private readonly max = 200_000) {}

  get(mode: string, term: string): number | undefined {
    return this.byMode.get(mode)?.get(term);
  }

  remember(mode: string, ids: Iterable<readonly [string, number]>): void {
    let known = this.byMode.get(mode);
    if (!known) this.byMode.set(mode, (known = new Map()));
    for (const [term, id] of ids) {
      if (known.has(term)) continue;
      known.set(term, id);
      this.size++;
    }
    this.forgetOldest();
  }

  /** Forgets a mode's ids (its terms were deleted along with its statistics: see writeBatch). */
  forget(mode: string): void {
    this.size -= this.byMode.get(mode)?.size ?? 0;
    this.byMode.delete(mode);
  }

  private forgetOldest(): void {
    for (const [mode, known] of this.byMode) {
      for (const term of known.keys()) {
        if (this.size <= this.max) return;
        known.delete(term);
        this.size--;
      }
      if (known.size === 0) this.byMode.delete(mode);
    }
  }
}
