import { describe, expect, it } from "vitest";
import type { ServerStat } from "./haproxy-state.ts";
import { decide, type Phase, refusal, restartCommand } from "./rolling-restart.ts";

const LIMITS = { drainMs: 30_000, backMs: 120_000 };
const seen = (status: string, fields: Partial<ServerStat> = {}): ServerStat => ({
  name: "api1",
  status,
  sessions: 0,
  downs: 0,
  check: "L7OK 200",
  ...fields,
});
const draining: Phase = { step: "draining", since: 0 };
const returning: Phase = { step: "returning", since: 0, downs: 1, sawDown: false };
const readying: Phase = { step: "readying", since: 0 };

describe("decide", () => {
  it.each([
    {
      case: "drained with no session left: restart, then wait for its return",
      phase: draining,
      given: seen("DRAIN", { downs: 1 }),
      now: 40,
      want: { do: "restart", sessionsLeft: 0, next: { step: "returning", since: 40, downs: 1, sawDown: false } },
    },
    {
      case: "sessions still open: wait",
      phase: draining,
      given: seen("DRAIN", { sessions: 3 }),
      now: 40,
      want: { do: "wait", phase: draining },
    },
    {
      case: "sessions still open at the drain timeout: restart anyway (the host's own drain ends them)",
      phase: draining,
      given: seen("DRAIN", { sessions: 3 }),
      now: 30_000,
      want: { do: "restart", sessionsLeft: 3, next: { step: "returning", since: 30_000, downs: 0, sawDown: false } },
    },
    {
      case: "down while draining (it failed by itself): restart, its going down already seen",
      phase: draining,
      given: seen("DOWN", { downs: 2, check: "L4CON" }),
      now: 40,
      want: { do: "restart", sessionsLeft: 0, next: { step: "returning", since: 40, downs: 2, sawDown: true } },
    },
    {
      case: "taken out of drain by someone else: stop",
      phase: draining,
      given: seen("MAINT"),
      now: 40,
      want: { do: "fail", reason: expect.stringMatching(/^api1 left the drain state \(HAProxy shows it MAINT\)/) },
    },
    {
      // The restart command has ended, the old process's last checks still passed: HAProxy has not looked yet.
      case: "up as before, never seen down: wait (a stale UP)",
      phase: returning,
      given: seen("DRAIN", { downs: 1 }),
      now: 1_000,
      want: { do: "wait", phase: returning },
    },
    {
      case: "down by its count of transitions, up again: put it back",
      phase: returning,
      given: seen("DRAIN", { downs: 2 }),
      now: 5_000,
      want: { do: "ready", next: { step: "readying", since: 5_000 } },
    },
    {
      case: "down now: remember it, wait",
      phase: returning,
      given: seen("DOWN", { downs: 1, check: "L4CON" }),
      now: 2_000,
      want: { do: "wait", phase: { ...returning, sawDown: true } },
    },
    {
      case: "one good check of the two `rise` asks: wait",
      phase: { ...returning, sawDown: true },
      given: seen("DOWN 1/2", { downs: 2 }),
      now: 3_000,
      want: { do: "wait", phase: { ...returning, sawDown: true } },
    },
    {
      case: "up but one check failed since: wait for a healthy UP",
      phase: { ...returning, sawDown: true },
      given: seen("DRAIN 1/2", { downs: 2, check: "L7STS 503" }),
      now: 3_000,
      want: { do: "wait", phase: { ...returning, sawDown: true } },
    },
    {
      case: "still down at the deadline: stop, saying what HAProxy shows",
      phase: { ...returning, sawDown: true },
      given: seen("DOWN", { downs: 2, check: "L4CON" }),
      now: 120_000,
      want: {
        do: "fail",
        reason: "api1 was not back within 120 s of its restart: HAProxy shows it DOWN, its last check L4CON",
      },
    },
    {
      case: "never seen down at the deadline: stop, asking whether the command restarted it",
      phase: returning,
      given: seen("DRAIN", { downs: 1 }),
      now: 120_000,
      want: { do: "fail", reason: expect.stringMatching(/^HAProxy never saw api1 go down within 120 s/) },
    },
    {
      case: "put back and UP: done",
      phase: readying,
      given: seen("UP", { downs: 2 }),
      now: 200,
      want: { do: "done" },
    },
    {
      case: "put back, a check failed since: wait",
      phase: readying,
      given: seen("UP 1/2", { check: "L7TOUT" }),
      now: 200,
      want: { do: "wait", phase: readying },
    },
    {
      case: "put back and down at the deadline: stop",
      phase: readying,
      given: seen("DOWN", { check: "L4CON" }),
      now: 120_000,
      want: { do: "fail", reason: expect.stringMatching(/^api1 was put back in rotation but HAProxy shows it DOWN/) },
    },
  ])("$phase.step, $case", ({ phase, given, now, want }) => {
    expect(decide(phase, given, now, LIMITS)).toEqual(want);
  });
});

describe("refusal", () => {
  const up = (name: string) => ({ ...seen("UP"), name });
  const notUp = (reason: string, settling: boolean) => ({
    reason: `every server must be UP before one is taken out, and HAProxy shows ${reason}`,
    settling,
  });
  it.each([
    { case: "every server UP", stats: [up("api1"), up("api2")], want: undefined },
    {
      case: "another server down",
      stats: [up("api1"), { ...seen("DOWN"), name: "api2" }],
      want: notUp("api2 DOWN", false),
    },
    {
      case: "a server up, one check failed (settling)",
      stats: [up("api1"), up("api2"), { ...seen("UP 1/2"), name: "api3" }],
      want: notUp("api3 UP 1/2", true),
    },
    {
      case: "a server down, one check passed (settling)",
      stats: [
        { ...seen("UP 1/2"), name: "api1" },
        { ...seen("DOWN 1/2"), name: "api2" },
      ],
      want: notUp("api1 UP 1/2, api2 DOWN 1/2", true),
    },
    {
      case: "a server settling beside one down",
      stats: [
        { ...seen("UP 1/2"), name: "api1" },
        { ...seen("DOWN"), name: "api2" },
      ],
      want: notUp("api1 UP 1/2, api2 DOWN", false),
    },
    {
      case: "a server still drained from before",
      stats: [{ ...seen("DRAIN 1/2"), name: "api1" }, up("api2")],
      want: notUp("api1 DRAIN 1/2", false),
    },
    {
      case: "a server without a health check",
      stats: [up("api1"), { ...seen("no check"), name: "api2" }],
      want: { reason: expect.stringMatching(/^api2 has no health check/), settling: false },
    },
    {
      case: "the only server",
      stats: [up("api1")],
      want: { reason: "api1 is the backend's only server: taking it out would leave none", settling: false },
    },
    {
      case: "a server HAProxy does not have",
      stats: [up("api2"), up("api3")],
      want: { reason: expect.stringMatching(/^api1 is not/), settling: false },
    },
  ])("$case", ({ stats, want }) => {
    expect(refusal("api1", stats)).toEqual(want);
  });
});

describe("restartCommand", () => {
  const api1 = { name: "api1", address: "10.200.0.11" };
  it.each([
    {
      template: "ssh {address} sudo systemctl restart service-api",
      want: "ssh 10.200.0.11 sudo systemctl restart service-api",
    },
    { template: "restart-host {server} {server}.internal", want: "restart-host api1 api1.internal" },
  ])("fills in $template", ({ template, want }) => {
    expect(restartCommand(template, api1)).toBe(want);
  });

  it.each([
    {
      case: "a template that names no host",
      template: "systemctl restart service-api",
      server: api1,
      want: /\{server\}/,
    },
    {
      case: "a value a shell would read",
      template: "ssh {server}",
      server: { name: "api1;reboot", address: "10.200.0.11" },
      want: /not safe/,
    },
  ])("refuses $case", ({ template, server, want }) => {
    expect(() => restartCommand(template, server)).toThrow(want);
  });
});
