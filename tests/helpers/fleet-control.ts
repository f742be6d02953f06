/**
 * How a command run inside the fleet's hosts restarts a host's service. `admin rolling-restart` runs in the
 * balancer's host, as an operator runs it on a real balancer, and restarts each API host with a command: on real
 * machines `ssh {address} sudo systemctl restart service-api`. Here the hosts' processes are the test's own children
 * (fleet.ts keeps their output), so the command asks the test, over a unix socket: a socket file is reachable from
 * every network namespace of the machine. `POST /restart/api1` answers 200 once the new process listens (as
 * `systemctl restart` of a notifying service returns), 500 with the reason when the restart failed.
 */
import { once } from "node:events";
import { createServer } from "node:http";

export interface FleetControl {
  /** The restart command's template for `admin rolling-restart --restart`, `{server}` being an API host's name. */
  readonly restartCommand: string;
  close(): Promise<void>;
}

export async function startControl(
  socketPath: string,
  restart: (host: string) => Promise<void>,
): Promise<FleetControl> {
  const server = createServer((request, response) => {
    const host = /^\/restart\/(api1|api2)$/.exec(request.url ?? "")?.[1];
    if (request.method !== "POST" || !host) {
      response.writeHead(404).end("POST /restart/api1 or /restart/api2\n");
      return;
    }
    restart(host).then(
      () => response.end(`${host} restarted\n`),
      (error: unknown) => response.writeHead(500).end(`${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  server.listen(socketPath);
  await once(server, "listening");
  return {
    restartCommand: `curl -sS --fail-with-body --unix-socket ${socketPath} -X POST http://fleet/restart/{server}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
