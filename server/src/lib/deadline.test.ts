import { spawn } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { DeadlineExceeded, withDeadline } from "./deadline.ts";

const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

/** Blocks the event loop, as a burst of synchronous work in a busy process does. */
function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // spin
  }
}

describe("withDeadline", () => {
  it("passes an answer that comes in time", async () => {
    await expect(withDeadline(later(5, "ok"), 200)).resolves.toBe("ok");
  });

  it("rejects with DeadlineExceeded when no answer comes", async () => {
    await expect(withDeadline(new Promise(() => undefined), 20)).rejects.toBeInstanceOf(DeadlineExceeded);
  });

  it("passes on the work's own failure", async () => {
    await expect(withDeadline(Promise.reject(new Error("refused")), 200)).rejects.toThrow("refused");
  });

  it("does not call an answer late when only the event loop was busy past the deadline", async () => {
    // An echo server in another process answers at once, while this loop is blocked for 150 ms, past the 50 ms
    // deadline: the answer waits in the socket. A plain timer would fire before the poll phase reads it.
    const echo = spawn(process.execPath, [
      "-e",
      `const s = require("node:net").createServer((c) => c.on("data", (d) => c.write(d)));
       s.listen(0, "127.0.0.1", () => console.log(s.address().port));`,
    ]);
    const [port] = await once(echo.stdout, "data");
    const socket = connect(Number(String(port)), "127.0.0.1");
    await once(socket, "connect");
    try {
      const answer = once(socket, "data").then(([data]) => String(data));
      const guarded = withDeadline(answer, 50);
      socket.write("in time");
      busy(150);
      await expect(guarded).resolves.toBe("in time");
    } finally {
      socket.destroy();
      echo.kill();
    }
  });
});
