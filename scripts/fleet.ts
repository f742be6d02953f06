/**
 * The fleet of docs/deployment.md on this machine, to try by hand: `sudo npm run fleet` (after `npm run build`).
 *
 * It starts what tests/fleet/fleet.test.ts starts (tests/helpers/fleet.ts: each host a network namespace, HAProxy in
 * front of two API hosts, two worker hosts, PostgreSQL and Redis with a replica and Sentinel, a webhook receiver),
 * prints how to reach it, and removes it all on Ctrl-C. It needs root, `ip`, HAProxy and redis-server.
 */
import { fleetMissing, startFleet } from "../tests/helpers/fleet.ts";

const missing = fleetMissing();
if (missing) {
  console.error(missing);
  process.exit(2);
}
console.log("starting the fleet (about 30 s)…");
const fleet = await startFleet();
const client = fleet.namespace("client");
console.log(
  [
    `the fleet ${fleet.id} is up, each host a network namespace (${fleet.namespace("api1")}…). From its client host:`,
    `  sudo ip netns exec ${client} curl -s ${fleet.url}/ready`,
    `  sudo ip netns exec ${client} curl -s ${fleet.url}/v1/leads   (401 without a key)`,
    "Ctrl-C stops every process and removes every namespace.",
  ].join("\n"),
);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await fleet.stop();
  console.log("the fleet is gone");
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
