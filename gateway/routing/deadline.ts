/** The whole-request time budget: every leaf timeout and every retry wait is cut to what remains. */
export class Deadline {
  private readonly endsAt: number;

  constructor(
    budgetMs: number | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.endsAt = budgetMs === undefined ? Number.POSITIVE_INFINITY : now() + budgetMs;
  }

  remaining(): number {
    return Math.max(0, this.endsAt - this.now());
  }

  expired(): boolean {
    return this.remaining() <= 0;
  }

  /** A leaf's timeout: its own (or the default) cut to the remaining budget. */
  leafTimeout(ownMs: number | undefined, defaultMs: number): number {
    return Math.min(ownMs ?? defaultMs, this.remaining());
  }
}
