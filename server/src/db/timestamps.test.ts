import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/database.ts";
import { parseTimestamptz, WIRE_TIMESTAMPS, wireTimestamp } from "./timestamps.ts";

const pgParser = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, "text") as (value: string) => unknown;

/** A deterministic generator, so that a failure names a value that can be replayed. */
function* samples(count: number): Generator<string> {
  let seed = 12345;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor(seed / 65_536) % n; // the high bits: the low bits of this generator repeat quickly
  };
  const pad = (value: number, width: number) => String(value).padStart(width, "0");
  for (let i = 0; i < count; i++) {
    const fraction = ["", `.${pad(next(1_000_000), 6).slice(0, 1 + next(6))}`][next(2)];
    const offset = [
      "+00",
      `-${pad(next(16), 2)}`,
      `+${pad(next(16), 2)}:${pad(next(60), 2)}`,
      `-${pad(next(16), 2)}:30`,
    ][next(4)];
    yield `${pad(1000 + next(9000), 4)}-${pad(1 + next(12), 2)}-${pad(1 + next(28), 2)} ` +
      `${pad(next(24), 2)}:${pad(next(60), 2)}:${pad(next(60), 2)}${fraction}${offset}`;
  }
}

/** Three instants as a relation `v(t)` of timestamptz. */
const INSTANTS = `(VALUES ('2026-11-23 03:15:13.123456+00'::timestamptz), ('1970-01-01 00:00:00+00'),
                          ('9999-12-31 23:59:59.999999+00')) AS v(t)`;

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

/** Runs `check` on one client of the test database in each session time zone. */
async function inEachZone(zones: string[], check: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    for (const zone of zones) {
      await client.query(`SET TIME ZONE '${zone}'`);
      await check(client);
    }
  } finally {
    await client.end();
  }
}

describe("parseTimestamptz", () => {
  it("gives the same instant as pg's own parser for 20,000 generated values", () => {
    for (const value of samples(20_000)) {
      const ours = parseTimestamptz(value) as Date;
      const theirs = pgParser(value) as Date;
      expect(ours.getTime(), value).toBe(theirs.getTime());
    }
  });

  it("drops fractions of a millisecond, as pg's parser does", () => {
    expect((parseTimestamptz("2026-11-23 03:15:13.123999+00") as Date).toISOString()).toBe("2026-11-23T03:15:13.123Z");
    expect((parseTimestamptz("2026-11-23 03:15:13.5+00") as Date).toISOString()).toBe("2026-11-23T03:15:13.500Z");
  });

  it.each([
    "0099-01-01 00:00:00+00",
    "0999-12-31 23:59:59.999+00",
    "2000-01-01 00:00:00 BC+00",
    "1900-01-01 00:00:00+00:09:21",
    "infinity",
    "-infinity",
  ])("leaves %s to pg's parser", (value) => {
    const ours = parseTimestamptz(value);
    const theirs = pgParser(value);
    expect(ours instanceof Date ? ours.getTime() : ours).toStrictEqual(
      theirs instanceof Date ? theirs.getTime() : theirs,
    );
  });

  it("reads what PostgreSQL prints, in any session time zone", async () => {
    await inEachZone(["UTC", "Asia/Kolkata", "America/St_Johns", "Pacific/Chatham"], async (client) => {
      const { rows } = await client.query<{ text: string; epoch_ms: string }>(
        `SELECT t::text AS text, floor(extract(epoch FROM t) * 1000)::bigint::text AS epoch_ms FROM ${INSTANTS}`,
      );
      for (const row of rows)
        expect((parseTimestamptz(row.text) as Date).getTime(), row.text).toBe(Number(row.epoch_ms));
    });
  });
});

describe("wireTimestamp", () => {
  /** The text the Date path gave: pg's parser, then toISOString. */
  const throughDate = (value: string) => (pgParser(value) as Date).toISOString();

  it("gives the Date path's text for 20,000 generated values, in UTC and in other offsets", () => {
    for (const value of samples(20_000)) expect(wireTimestamp(value), value).toBe(throughDate(value));
  });

  it.each([
    ["2026-11-23 03:15:13+00", "2026-11-23T03:15:13.000Z"],
    ["2026-11-23 03:15:13.1+00", "2026-11-23T03:15:13.100Z"],
    ["2026-11-23 03:15:13.12+00", "2026-11-23T03:15:13.120Z"],
    ["2026-11-23 03:15:13.123999+00", "2026-11-23T03:15:13.123Z"],
    ["2026-11-23 03:15:13.999999-01", "2026-11-23T04:15:13.999Z"],
    ["0999-12-31 23:59:59.999+00", "0999-12-31T23:59:59.999Z"],
    ["2000-01-01 00:00:00+00 BC", "-001999-01-01T00:00:00.000Z"],
  ])("reads %s as %s", (value, wire) => {
    expect(wireTimestamp(value)).toBe(wire);
    expect(wireTimestamp(value)).toBe(throughDate(value));
  });

  it("reads what PostgreSQL prints through WIRE_TIMESTAMPS, in any session time zone, and other columns as usual", async () => {
    await inEachZone(["UTC", "Asia/Kolkata", "America/St_Johns"], async (client) => {
      const { rows } = await client.query<{ at: string; text: string; tags: string[]; day: Date }>({
        text: `SELECT t AS at, t::text AS text, ARRAY['a', 'b'] AS tags, '2026-11-23'::timestamp AS day FROM ${INSTANTS}`,
        types: WIRE_TIMESTAMPS,
      });
      for (const row of rows) {
        expect(row.at, row.text).toBe(throughDate(row.text));
        expect(row.tags).toEqual(["a", "b"]);
        expect(row.day).toBeInstanceOf(Date);
      }
      expect(rows.map((row) => row.at)).toEqual([
        "2026-11-23T03:15:13.123Z",
        "1970-01-01T00:00:00.000Z",
        "9999-12-31T23:59:59.999Z",
      ]);
    });
  });
});
