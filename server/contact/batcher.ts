/**
 * Gathers work that arrives while earlier work is in flight, and runs it as one batch: the first item
 * starts at once (no waiting at low load); under load, each batch takes everything that queued while
 * the ones before it ran. At most `parallel` batches run at a time, each of at most `maxBatch` items.
 * `run` answers for every item of its batch, in order; if it throws, every item of the batch fails.
 */
export class Batcher<T, R> {
  private readonly queue: Array<{ item: T; resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  private running = 0;
  private readonly run: (items: T[]) => Promise<R[]>;
  private readonly maxBatch: number;
  private readonly parallel: number;

  constructor(run: (items: T[]) => Promise<R[]>, maxBatch = 64, parallel = 2) {
    this.run = run;
    this.maxBatch = maxBatch;
    this.parallel = parallel;
  }

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump() {
    while (this.running < this.parallel && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.running += 1;
      this.run(batch.map((b) => b.item))
        .then(
          (results) => {
            for (const [n, b] of batch.entries()) b.resolve(results[n] as R);
          },
          (error) => {
            for (const b of batch) b.reject(error);
          },
        )
        .finally(() => {
          this.running -= 1;
          this.pump();
        });
    }
  }
}
