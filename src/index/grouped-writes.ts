/**
 * Writes of one mode grouped while the previous one runs (a group commit). Writers of a mode
 * take turns anyway (writeBatch locks the mode's statistics row first), so documents that arrive
 * while a write is under way would only wait for it; written together they share one
 * transaction, one pass over the term dictionary and one segment. Concurrent extractions, each
 * indexing its one page, thus cost a fraction of a write each, and leave a fraction of the
 * segments to merge. Every caller still resolves only once its documents are committed.
 */
import type { Mode } from '../mode.js';

export interface PendingWrite<D, O> {
  documents: readonly D[];
  resolve(outcomes: O[]): void;
  reject(error: unknown): void;
}

export class GroupedWrites<D, O> {
  private readonly pending = new Map<Mode, PendingWrite<D, O>[]>();
  private readonly running = new Set<Mode>();

  constructor(
    /** Writes documents in one go and returns their outcomes in order. */
    private readonly write: (mode: Mode, documents: readonly D[]) => Promise<O[]>,
    /** Documents one write takes at most (a single larger request is written alone). */
    private readonly maxDocuments: number,
  ) {}

  /** The outcomes of `documents`, once a write that holds them has committed. */
  add(mode: Mode, documents: readonly D[]): Promise<O[]> {
    return new Promise<O[]>((resolve, reject) => {
      const queue = this.pending.get(mode);
      if (queue) queue.push({ documents, resolve, reject });
      else this.pending.set(mode, [{ documents, resolve, reject }]);
      if (!this.running.has(mode)) void this.drain(mode);
    });
  }

  private async drain(mode: Mode): Promise<void> {
    this.running.add(mode);
    try {
      for (let group = this.take(mode); group.length > 0; group = this.take(mode)) await this.writeGroup(mode, group);
    } finally {
      this.running.delete(mode);
    }
  }

  /** The writes waiting for the mode, oldest first, up to maxDocuments (at least one). */
  private take(mode: Mode): PendingWrite<D, O>[] {
    const queue = this.pending.get(mode) ?? [];
    let count = 0;
    let n = 0;
    while (n < queue.length && (n === 0 || count + queue[n]!.documents.length <= this.maxDocuments)) count += queue[n++]!.documents.length;
    const group = queue.splice(0, n);
    if (queue.length === 0) this.pending.delete(mode);
    return group;
  }

  private async writeGroup(mode: Mode, group: PendingWrite<D, O>[]): Promise<void> {
    if (group.length === 1) return this.writeAlone(mode, group[0]!);
    let outcomes: O[];
    try {
      outcomes = await this.write(mode, group.flatMap((w) => w.documents));
    } catch {
      // One caller's documents must not fail another's: each is written on its own instead,
      // and only the one at fault sees its error.
      for (const w of group) await this.writeAlone(mode, w);
      return;
    }
    let at = 0;
    for (const w of group) {
      w.resolve(outcomes.slice(at, at + w.documents.length));
      at += w.documents.length;
    }
  }

  private async writeAlone(mode: Mode, w: PendingWrite<D, O>): Promise<void> {
    try {
      w.resolve(await this.write(mode, w.documents));
    } catch (error) {
      w.reject(error);
    }
  }
}
