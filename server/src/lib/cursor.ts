/**
 * Opaque list cursors. A cursor carries the id of the last object of a page; ids are ULIDs, so "after this id,
 * newest first" is a keyset query that stays stable while rows are inserted. Anything that does not decode to
 * an id of the list's kind is a 400 `INVALID_CURSOR`, never a database error.
 */
import { AppError } from "../errors.ts";

export function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ v: 1, id: lastId }), "utf8").toString("base64url");
}

export function decodeCursor(cursor: string | undefined, idPattern: RegExp): string | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { v?: unknown; id?: unknown };
    if (value.v === 1 && typeof value.id === "string" && idPattern.test(value.id)) return value.id;
  } catch {
    // fall through
  }
  throw new AppError("INVALID_CURSOR", { errors: [{ path: "query.cursor", message: "is not a cursor of this list" }] });
}

/** Builds the list envelope from `limit + 1` rows fetched newest first. */
export function toPage<T extends { id: string }>(rows: T[], limit: number) {
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  const last = data[data.length - 1];
  return {
    object: "list" as const,
    data,
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(last.id) : null,
  };
}
