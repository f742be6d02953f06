/**
 * What HAProxy's runtime API says about a backend's servers, read from its two dumps (HAProxy 2.6 management guide,
 * section 9.3 for both commands): `show servers state <backend>` (which servers, their address, and their states as
 * numbers) and `show stat <backend> 4 -1` (section 9.1, CSV: each server's status with its health, its current
 * sessions and its count of UP to DOWN transitions). Pure: the socket talk is in haproxy-socket.ts.
 */

/** A server of the backend, from `show servers state`. */
export interface ServerEntry {
  name: string;
  address: string;
  /** srv_op_state: 0 stopped, 1 starting, 2 running, 3 stopping. */
  opState: number;
  /** srv_admin_state, a mask: 0x01/0x02/0x04/0x20/0x40 maintenance of some kind, 0x08/0x10 drain. */
  adminState: number;
}

/** A server's figures in `show stat`. */
export interface ServerStat {
  name: string;
  /**
   * "UP", "DOWN", "DRAIN", "MAINT", "no check"…, with " 1/2" appended while its health is between two states ("UP 1/2":
   * up, one check failed; "DOWN 1/2": down, one check passed). "DOWN" wins over "DRAIN" while the server is down.
   */
  status: string;
  /** scur: the sessions on it now. */
  sessions: number;
  /** chkdown: how many times its health checks took it from UP to DOWN, drained or not. */
  downs: number;
  /** Its last health check: "L7OK 200", "L7STS 503", "L4CON"… (without the "* " of a check in progress). */
  check: string;
}

/** A runtime API answer that is not the dump asked for ("Can't find backend.", "Permission denied."). */
class RuntimeAnswerError extends Error {}

/**
 * The servers of `show servers state <backend>`: a format version line ("1"), a header line naming the columns after
 * "#", one line per server, space-separated (section 9.3).
 *
 * @example
 * parseServersState("1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state\n3 b 1 s 10.0.0.1 2 0\n")
 * // [{ name: "s", address: "10.0.0.1", opState: 2, adminState: 0 }]
 */
export function parseServersState(text: string): ServerEntry[] {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  if (lines[0]?.trim() !== "1" || !lines[1]?.startsWith("# ")) {
    throw new RuntimeAnswerError(`not a "show servers state" dump of format 1: ${text.trim().slice(0, 200)}`);
  }
  const columns = lines[1].slice(2).trim().split(/\s+/);
  return lines.slice(2).map((line) => {
    const value = row(columns, line.trim().split(/\s+/));
    return {
      name: value("srv_name"),
      address: value("srv_addr"),
      opState: Number(value("srv_op_state")),
      adminState: Number(value("srv_admin_state")),
    };
  });
}

/**
 * The servers of `show stat <backend> 4 -1`: a header line ("# pxname,svname,…"), one CSV line per server, then an
 * empty line, which says the dump is complete (section 9.3, "show stat"). Its values hold no comma or quote here:
 * names, numbers, statuses.
 */
export function parseStat(text: string): ServerStat[] {
  if (!text.startsWith("# pxname,") || !text.endsWith("\n\n")) {
    throw new RuntimeAnswerError(`not a complete "show stat" dump: ${text.trim().slice(0, 200)}`);
  }
  const [header = "", ...lines] = text.trim().split("\n");
  const columns = header.slice(2).split(",");
  return lines
    .map((line) => row(columns, line.split(",")))
    .filter((value) => value("svname") !== "FRONTEND" && value("svname") !== "BACKEND")
    .map((value) => ({
      name: value("svname"),
      status: value("status"),
      sessions: Number(value("scur")),
      downs: Number(value("chkdown") || 0),
      check: `${value("check_status").replace(/^\* /, "")} ${value("check_code")}`.trim(),
    }));
}

/** A reader of one line's values by column name, which throws on a column the dump does not have. */
function row(columns: string[], values: string[]): (column: string) => string {
  return (column) => {
    const index = columns.indexOf(column);
    if (index === -1) throw new RuntimeAnswerError(`HAProxy's dump has no column ${column}`);
    return values[index] ?? "";
  };
}
