/**
 * HAProxy's runtime API, one command per connection: the "non-interactive mode" of the management guide (9.3), in
 * which "a single line may be sent. It is processed as a whole, responses are sent back, and the connection closes
 * after the end of the response". The socket is the configuration's `stats socket` line: a unix socket's path, or
 * `ipv4@host:port` (`host:port` is taken for the same).
 */
import { connect, type NetConnectOpts } from "node:net";

/** A command's answer comes in milliseconds; past this the balancer is not answering. */
const RUNTIME_API_TIMEOUT_MS = 5_000;

/** Where to connect for `address`: a path starting with "/" is a unix socket, anything else `[ipv4@]host:port`. */
function socketTarget(address: string): NetConnectOpts {
  if (address.startsWith("/")) return { path: address };
  const match = /^(?:ipv4@)?([^:@]+):(\d+)$/.exec(address);
  if (!match) throw new Error(`not a HAProxy runtime socket: ${address} (a unix socket's path, or ipv4@host:port)`);
  return { host: match[1] as string, port: Number(match[2]) };
}

/**
 * A function that sends one command to the runtime API at `address` and resolves with HAProxy's whole answer.
 *
 * @example
 * const send = runtimeApi("/run/haproxy/admin.sock");
 * await send("show servers state api_hosts"); // "1\n# be_id be_name …\n3 api_hosts 1 api1 10.0.0.11 2 0 …\n\n"
 */
export function runtimeApi(address: string): (command: string) => Promise<string> {
  const target = socketTarget(address);
  return (command) =>
    new Promise((resolve, reject) => {
      const socket = connect(target);
      let answer = "";
      socket.setEncoding("utf8");
      socket.setTimeout(RUNTIME_API_TIMEOUT_MS, () =>
        socket.destroy(new Error(`HAProxy's runtime API at ${address} did not answer "${command}"`)),
      );
      // Not ended from this side: HAProxy closes the connection once its answer is written.
      socket.on("connect", () => socket.write(`${command}\n`));
      socket.on("data", (chunk: string) => {
        answer += chunk;
      });
      socket.on("error", (error) =>
        reject(new Error(`HAProxy's runtime API at ${address}: ${error.message}`, { cause: error })),
      );
      socket.on("close", (failed) => {
        if (!failed) resolve(answer);
      });
    });
}
