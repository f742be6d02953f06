/**
 * The HTTP listener of an API process, and its graceful end: on `stop()`, `/ready` answers 503 for the drain period
 * (the balancer stops sending new requests before the listener closes), then in-flight requests finish, up to the
 * shutdown timeout.
 */
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { clientErrorAnswer } from "./client-error.ts";

/**
 * Idle keep-alive connections stay open longer than the load balancers' and clients' own idle timeouts (60 s is
 * common): a server that closes first races a client reusing the connection, whose request then fails with "other side
 * closed". Node's default is 5 s; headersTimeout must stay above it.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export interface HttpListener {
  /** `http://host:port`. */
  readonly url: string;
  stop(): Promise<void>;
}

/** `app` is given whether the process is draining (its answers then ask clients to connect elsewhere). */
export async function listen(
  app: (isDraining: () => boolean) => RequestListener,
  config: Pick<Config, "port" | "host" | "shutdownDrainMs" | "shutdownTimeoutMs">,
  logger: Logger,
): Promise<HttpListener> {
  let draining = false;
  const listening = createServer(app(() => draining));
  // Requests that Node's parser refuses are answered as every other: Request-Id and a problem (client-error.ts).
  listening.on("clientError", clientErrorAnswer(logger));
  const server = await new Promise<Server>((resolve, reject) => {
    listening.once("error", reject);
    listening.listen(config.port, config.host, () => {
      listening.off("error", reject);
      resolve(listening);
    });
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    async stop() {
      draining = true;
      if (config.shutdownDrainMs > 0) {
        logger.info({ drain_ms: config.shutdownDrainMs }, "draining: /ready answers 503, still serving");
        await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
      }
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      await closing;
      clearTimeout(timer);
    },
  };
}
