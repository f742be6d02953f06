/** A TCP port free on 127.0.0.1 right now, for a server a test starts (a private PostgreSQL, Redis, a receiver). */
import { createServer } from "node:net";

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("port"))));
    });
  });
}
