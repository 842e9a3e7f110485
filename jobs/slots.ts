/** A counting semaphore: at most `size` tasks run at once; the rest wait in arrival order. */
export class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `running` never drops below the true count.
      if (next) next();
      else this.running -= 1;
    }
  }
}
