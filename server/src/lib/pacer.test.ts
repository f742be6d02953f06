import { describe, expect, it } from "vitest";
import { createPacer } from "./pacer.ts";

describe("createPacer", () => {
  const clock = (start = 1_000) => {
    let t = start;
    return {
      now: () => t,
      advance: (ms: number) => {
        t += ms;
      },
    };
  };

  it("lets the first batch start at once, and the next when the first has used its share of a second", () => {
    const time = clock();
    const pacer = createPacer(100, time.now);
    expect(pacer.delayMs()).toBe(0);
    pacer.take(50);
    expect(pacer.delayMs()).toBe(500);
    time.advance(200);
    expect(pacer.delayMs()).toBe(300);
    time.advance(300);
    expect(pacer.delayMs()).toBe(0);
  });

  it("holds the rate over many batches: 1,000 items at 100 a second take 10 s, whatever the batch sizes", () => {
    const time = clock();
    const pacer = createPacer(100, time.now);
    let started = 0;
    const sizes = [50, 1, 17, 50, 33];
    for (let i = 0; started < 1_000; i++) {
      time.advance(pacer.delayMs());
      const size = Math.min(sizes[i % sizes.length] ?? 1, 1_000 - started);
      pacer.take(size);
      started += size;
    }
    time.advance(pacer.delayMs());
    expect(time.now() - 1_000).toBe(10_000);
  });

  it("saves nothing while idle: after a long pause, one batch at once, then the rate again", () => {
    const time = clock();
    const pacer = createPacer(10, time.now);
    pacer.take(10);
    time.advance(60_000);
    expect(pacer.delayMs()).toBe(0);
    pacer.take(10);
    expect(pacer.delayMs()).toBe(1_000);
  });
});
