/**
 * Conditional requests (RFC 9110 §13) on the objects that carry a `version`: each has a strong entity tag made of
 * its id and version, which changes with every change of the object and only then.
 *
 * - `If-None-Match` on a read: the dispatch (http/dispatch.ts) answers 304 with no body when the object's tag is one of those named
 *   (weak comparison, as §13.1.2 says), and spends nothing of the caller's budget on it (dispatch.ts).
 * - `If-Match` on a change: the write compares it with the object as locked in its transaction (strong comparison,
 *   §13.1.1) and fails with 412 `PRECONDITION_FAILED`, the current tag in `ETag`, before changing anything.
 */
import { AppError } from "../errors.ts";

/** What an object's tag is made of. */
export interface Versioned {
  readonly id: string;
  readonly version: number;
}

/** The strong entity tag of an object at its version, quoted as `ETag` carries it: `"lead_01J….3"`. */
function entityTag(object: Versioned): string {
  return `"${object.id}.${object.version}"`;
}

/** The tag of a reply's body when it is a versioned object, else undefined. */
export function entityTagOf(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { id, version } = body as Partial<Versioned>;
  return typeof id === "string" && Number.isInteger(version)
    ? entityTag({ id, version: version as number })
    : undefined;
}

/**
 * Whether `tag` is one of a condition header's entity tags (a comma-separated list, or `*` for any). `weak`: a tag
 * sent as `W/"…"` matches its strong form (If-None-Match); otherwise a weak tag never matches (If-Match).
 */
export function listsTag(header: string, tag: string, weak: boolean): boolean {
  const value = header.trim();
  if (value === "*") return true;
  for (const part of value.split(",")) {
    let candidate = part.trim();
    if (candidate.startsWith("W/")) {
      if (!weak) continue;
      candidate = candidate.slice(2);
    }
    if (candidate === tag) return true;
  }
  return false;
}

/** What a change checks against the object it locked: nothing without `If-Match`. */
export type Precondition = (current: Versioned) => void;

/**
 * The precondition of a change from its `If-Match` header: throws 412 `PRECONDITION_FAILED` with the current tag
 * when the locked object is not at a version the header names.
 *
 * @example
 * const expect = ifMatch(request.header("if-match"));
 * expect?.(await lockLeadRow(db, workspaceId, id)); // throws 412 unless it matches
 */
export function ifMatch(header: string | undefined): Precondition | undefined {
  if (header === undefined) return undefined;
  return (current) => {
    const tag = entityTag(current);
    if (!listsTag(header, tag, false)) throw preconditionFailed(current, "The If-Match header");
  };
}

/** 412 for an object at another version than the one a condition named; nothing was changed. */
function preconditionFailed(current: Versioned, what: string): AppError {
  return new AppError("PRECONDITION_FAILED", {
    detail: `${what} does not name the current version of ${current.id} (version ${current.version}); nothing was changed.`,
    headers: { ETag: entityTag(current) },
  });
}

/**
 * The 412 of a batch item whose `expected_version` is not the version of the object it matched (`current`, locked),
 * or that matched none; undefined when it is.
 */
export function staleItem(expected: number, current: Versioned | undefined): AppError | undefined {
  if (current === undefined) {
    return new AppError("PRECONDITION_FAILED", {
      detail: `expected_version ${expected} names a version, but no object matches the item; nothing was changed.`,
    });
  }
  return current.version === expected ? undefined : preconditionFailed(current, `expected_version ${expected}`);
}
