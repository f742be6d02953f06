import { describe, expect, it } from "vitest";
import { parseServersState, parseStat } from "./haproxy-state.ts";

/** HAProxy 2.6.12's `show servers state api_hosts`, as it answered with api1 drained. */
const SERVERS_STATE = [
  "1",
  "# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight " +
    "srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state " +
    "bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr " +
    "srv_agent_addr srv_agent_port",
  "3 api_hosts 1 api1 10.200.0.11 2 8 1 1 0 15 3 3 6 0 0 0 - 3000 - 0 0 - - 0",
  "3 api_hosts 2 api2 10.200.0.12 0 0 1 1 14 15 3 3 6 0 0 0 - 3000 - 0 0 - - 0",
  "",
  "",
].join("\n");

/** The columns of HAProxy 2.6.12's `show stat` up to the last one read, then one server line per case. */
const STAT_HEADER =
  "# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,weight,act," +
  "bck,chkfail,chkdown,lastchg,downtime,qlimit,pid,iid,sid,throttle,lbtot,tracked,type,rate,rate_lim,rate_max," +
  "check_status,check_code,check_duration";
const statLine = (name: string, scur: number, status: string, chkdown: number, check: string, code: string) =>
  `api_hosts,${name},0,0,${scur},3,,90,0,0,,0,,0,0,0,0,${status},1,1,0,0,${chkdown},2,0,,1,3,1,,0,,2,0,,0,${check},${code},1`;
const stat = (...lines: string[]) => `${STAT_HEADER}\n${lines.join("\n")}\n\n`;

describe("parseServersState", () => {
  it("reads each server's name, address and states by the header's column names", () => {
    expect(parseServersState(SERVERS_STATE)).toEqual([
      { name: "api1", address: "10.200.0.11", opState: 2, adminState: 8 },
      { name: "api2", address: "10.200.0.12", opState: 0, adminState: 0 },
    ]);
  });

  it.each([
    { given: "Can't find backend.\n", want: /Can't find backend/ },
    { given: "Permission denied\n", want: /Permission denied/ },
    { given: "2\n# be_id be_name\n", want: /format 1/ },
    { given: "1\n# be_id be_name srv_id\n3 api_hosts 1\n", want: /no column srv_name/ },
  ])("refuses an answer that is not the dump: $given", ({ given, want }) => {
    expect(() => parseServersState(given)).toThrow(want);
  });
});

describe("parseStat", () => {
  it.each([
    {
      case: "in rotation, its last check passed",
      line: statLine("api1", 2, "UP", 0, "L7OK", "200"),
      want: { name: "api1", status: "UP", sessions: 2, downs: 0, check: "L7OK 200" },
    },
    {
      case: "drained, a check failed, a check running",
      line: statLine("api1", 0, "DRAIN 1/2", 0, "* L7STS", "503"),
      want: { name: "api1", status: "DRAIN 1/2", sessions: 0, downs: 0, check: "L7STS 503" },
    },
    {
      case: "down (refused at connect, no code), counted once",
      line: statLine("api1", 0, "DOWN", 1, "L4CON", ""),
      want: { name: "api1", status: "DOWN", sessions: 0, downs: 1, check: "L4CON" },
    },
    {
      case: "without a check",
      line: statLine("api1", 0, "no check", 0, "", ""),
      want: { name: "api1", status: "no check", sessions: 0, downs: 0, check: "" },
    },
  ])("reads a server $case", ({ line, want }) => {
    expect(parseStat(stat(line))).toEqual([want]);
  });

  it("leaves out the backend's own line", () => {
    const backend = "api_hosts,BACKEND,0,0,2,3,,90,0,0,0,0,,0,0,0,0,UP,2,2,0,,0,2,0,,1,3,0,,90,,1,0,,5,,,";
    expect(parseStat(stat(statLine("api1", 0, "UP", 0, "L7OK", "200"), backend)).map((s) => s.name)).toEqual(["api1"]);
  });

  it.each([
    { case: "a refusal", given: "No such proxy.\n", want: /No such proxy/ },
    // Without the empty line that ends a dump, the connection closed in the middle of it.
    { case: "a cut dump", given: `${STAT_HEADER}\n${statLine("api1", 0, "UP", 0, "L7OK", "200")}\n`, want: /complete/ },
  ])("refuses $case", ({ given, want }) => {
    expect(() => parseStat(given)).toThrow(want);
  });
});
