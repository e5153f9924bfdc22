/** Configs whose last delivered seq is remembered (for deliveries handed off behind it): the newest ones. */
const REMEMBERED_CONFIGS = 4_096;

/** The last seq delivered per config, for the newest `REMEMBERED_CONFIGS` configs. */
export class DeliveredSeqs {
  /** Oldest first. */
  private readonly seqs = new Map<string, number>();

  /** The last seq delivered of `config`, 0 when none is remembered. */
  of(config: string): number {
    return this.seqs.get(config) ?? 0;
  }

  remember(config: string, seq: number): void {
    this.seqs.delete(config);
    this.seqs.set(config, seq);
    if (this.seqs.size > REMEMBERED_CONFIGS) {
      const oldest = this.seqs.keys().next();
      if (!oldest.done) this.seqs.delete(oldest.value);
    }
  }
}
