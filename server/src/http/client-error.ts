/**
 * The answers to requests that Node's HTTP parser refuses before any middleware runs: a request line and headers
 * over `maxHeaderSize` (16 KiB), a malformed request, headers that did not arrive in time. Node writes a bare status
 * line for them (`431` and nothing else); a `clientError` listener writes them instead, so that these answers carry
 * what every answer of the service carries: a `Request-Id` and an RFC 9457 problem.
 *
 * The connection is closed after the answer: the parser cannot tell where the next request starts (RFC 9112 §9.6).
 */
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { AppError, type ErrorCode, toProblem } from "../errors.ts";
import { newId } from "../lib/ids.ts";

/** Node's codes for the requests its parser refuses (`_http_server.js`), and the catalog code each answers. */
const ANSWERS: Readonly<Record<string, { code: ErrorCode; detail: string }>> = {
  HPE_HEADER_OVERFLOW: {
    code: "HEADERS_TOO_LARGE",
    detail: "The request line and headers are over 16 KiB: send a shorter URL or fewer headers.",
  },
  ERR_HTTP_REQUEST_TIMEOUT: { code: "REQUEST_TIMEOUT", detail: "The request did not arrive in time." },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { code: "PAYLOAD_TOO_LARGE", detail: "A chunk's extensions are too large." },
};
const MALFORMED = { code: "VALIDATION_FAILED", detail: "The request is not an HTTP/1.1 message (RFC 9112)." } as const;

/** What Node gives a `clientError` listener: the socket, and the response in progress on it, if any. */
type ClientSocket = Duplex & { _httpMessage?: { headersSent?: boolean } | null };

/**
 * `server.on("clientError", clientErrorAnswer(logger))`.
 *
 * @example
 * const server = createServer(app);
 * server.on("clientError", clientErrorAnswer(logger));
 */
export function clientErrorAnswer(logger: Logger) {
  return function answerClientError(error: Error & { code?: string }, socket: ClientSocket): void {
    // A peer that went away has no one to read an answer; neither may one be written into a response under way.
    if (error.code === "ECONNRESET" || !socket.writable || socket._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const { code, detail } = ANSWERS[error.code ?? ""] ?? MALFORMED;
    const requestId = newId("request");
    const problem = new AppError(code, { detail, cause: error });
    const body = JSON.stringify(toProblem(problem, requestId));
    logger.debug({ request_id: requestId, err: error, code }, "request refused by the HTTP parser");
    socket.end(
      [
        `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}`,
        `Request-Id: ${requestId}`,
        "X-Content-Type-Options: nosniff",
        "Cache-Control: no-store",
        "Content-Type: application/problem+json; charset=utf-8",
        `Content-Length: ${Buffer.byteLength(body)}`,
        "Connection: close",
        "",
        body,
      ].join("\r\n"),
    );
  };
}
