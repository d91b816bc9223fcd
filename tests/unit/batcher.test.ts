import { describe, expect, it } from "vitest";
import { Batcher } from "../../server/contact/batcher.ts";

/** The batching both the PostgreSQL intake and the outbox's marks go through (server/contact/batcher.ts). */

function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { opened, open };
}

describe("Batcher", () => {
  it("runs the first item at once, then what queued meanwhile as one batch, one batch at a time", async () => {
    const batches: number[][] = [];
    let running = 0;
    let most = 0;
    const first = gate();
    const batcher = new Batcher<number, string>(async (items) => {
      batches.push(items);
      running += 1;
      most = Math.max(most, running);
      if (items[0] === 1) await first.opened;
      await new Promise((r) => setTimeout(r, 5));
      running -= 1;
      return items.map((n) => `answer ${n}`);
    });
    const answers = [batcher.add(1)];
    await new Promise((r) => setTimeout(r, 5));
    for (let n = 2; n <= 6; n++) answers.push(batcher.add(n));
    first.open();
    expect(await Promise.all(answers)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `answer ${n}`));
    expect(batches).toEqual([[1], [2, 3, 4, 5, 6]]);
    expect(most).toBe(1);
  });

  it("caps a batch at maxBatch", async () => {
    const sizes: number[] = [];
    const batcher = new Batcher<number, number>(async (items) => {
      sizes.push(items.length);
      await new Promise((r) => setTimeout(r, 1));
      return items;
    }, 3);
    expect(await Promise.all([1, 2, 3, 4, 5, 6, 7].map((n) => batcher.add(n)))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(sizes).toEqual([1, 3, 3]);
  });

  it("fails every item of a batch that throws, and goes on with the next", async () => {
    const batcher = new Batcher<number, number>(async (items) => {
      await new Promise((r) => setTimeout(r, 2));
      if (items.includes(2)) throw new Error("storage unavailable");
      return items;
    });
    const results = await Promise.allSettled([1, 2, 3].map((n) => batcher.add(n)));
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected"]);
    expect(await batcher.add(4)).toBe(4);
  });
});
