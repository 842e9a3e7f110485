/**
 * A label whose values come from callers (model names): the first `cap` distinct values keep
 * their name, later ones are reported as "other", so a client cannot grow the metric set without
 * bound by sending made-up names.
 */
export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(private readonly cap: number) {}

  of(value: string | null): string {
    if (value === null || value === '') return 'none';
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.cap) return 'other';
    this.seen.add(value);
    return value;
  }
}
