// A webhook receiver for the drain benchmark, in its own process so that its work does not distort the latencies the
// benchmark measures in its own event loop. It answers every POST 200 at once and counts; it keeps no bodies (a
// backlog of 100,000 deliveries would otherwise fill memory and make each receipt slower than the last).
// `node count-receiver.mjs <dir with server.key and server.pem>` prints its port, then sends
// `{ count, first, last }` (receipt times in ms since the epoch) to its parent over IPC whenever asked.
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import { join } from "node:path";

const [dir] = process.argv.slice(2);
let count = 0;
let first = 0;
let last = 0;
const server = createServer(
  { key: readFileSync(join(dir, "server.key")), cert: readFileSync(join(dir, "server.pem")) },
  (req, res) => {
    req.resume();
    req.on("end", () => {
      last = Date.now();
      if (count === 0) first = last;
      count += 1;
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  },
);
server.keepAliveTimeout = 30_000;
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
process.on("message", () => process.send?.({ count, first, last }));
process.on("disconnect", () => process.exit(0));
