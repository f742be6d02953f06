import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DeadlineExceeded, withDeadline } from "./deadline.ts";

const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

/**
 * Blocks the event loop, as a burst of synchronous work in a busy process does: for at least `ms`, and then on until
 * `done()` holds (at most 10 s, a bound only for a `done` that never comes).
 */
function busy(ms: number, done: () => boolean): void {
  const start = Date.now();
  while (Date.now() - start < ms || (!done() && Date.now() - start < 10_000)) {
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
    // An echo server in another process answers while this loop is blocked past the 50 ms deadline: the answer waits
    // in the socket. A plain timer would fire before the poll phase reads it. The loop stays blocked until the echo
    // has written its answer (it touches a marker file once its write is done), however slow the machine: so when
    // the loop frees up, both the deadline's timer is due and the answer is there, which is the case under test.
    const folder = mkdtempSync(join(tmpdir(), "deadline-"));
    const written = join(folder, "written");
    const echo = spawn(process.execPath, [
      "-e",
      `const s = require("node:net").createServer((c) => c.on("data", (d) =>
         c.write(d, () => require("node:fs").writeFileSync(${JSON.stringify(written)}, ""))));
       s.listen(0, "127.0.0.1", () => console.log(s.address().port));`,
    ]);
    const [port] = await once(echo.stdout, "data");
    const socket = connect(Number(String(port)), "127.0.0.1");
    await once(socket, "connect");
    try {
      const answer = once(socket, "data").then(([data]) => String(data));
      const guarded = withDeadline(answer, 50);
      socket.write("in time");
      busy(150, () => existsSync(written));
      expect(existsSync(written), "the echo answered while the loop was busy").toBe(true);
      await expect(guarded).resolves.toBe("in time");
    } finally {
      socket.destroy();
      echo.kill();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
