/**
 * The fleet's webhook receiver (run inside its receiver host by fleet.ts): HTTPS with the fleet's own CA, each POST
 * answered 204 after `delayMs`, and one line per receipt appended to `log`: the `webhook-id` header, the `id` of the
 * body (they must agree, also on a duplicate), the sender's address and the time it was received (epoch ms).
 *
 *   node --import tsx tests/helpers/fleet-receiver.ts <dir with server.key, server.pem> <address> <port> <log> <delayMs>
 */
import { createWriteStream, readFileSync } from "node:fs";
import { createServer } from "node:https";
import { join } from "node:path";

const [dir, address, port, log, delayMs] = process.argv.slice(2) as [string, string, string, string, string];
const out = createWriteStream(log, { flags: "a" });
const server = createServer(
  { key: readFileSync(join(dir, "server.key")), cert: readFileSync(join(dir, "server.pem")) },
  (req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      let id = "";
      try {
        id = String((JSON.parse(body) as { id?: unknown }).id ?? "");
      } catch {
        // not JSON: an empty id, which the test reports
      }
      const from = (req.socket.remoteAddress ?? "").replace(/^::ffff:/, "");
      out.write(`${req.headers["webhook-id"] ?? ""} ${id} ${from} ${Date.now()}\n`);
      setTimeout(() => res.writeHead(204).end(), Number(delayMs));
    });
  },
);
server.keepAliveTimeout = 30_000;
server.listen(Number(port), address, () => console.log(`receiver listening on ${address}:${port}`));
