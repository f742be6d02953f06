/**
 * The pages at the problem type URIs (`/problems/lead-not-found`): RFC 9457 §3.1.1 advises that a type URI answer
 * documentation for people. Each page says what its code means and what to do, from the contract's error catalog
 * (spec/error-catalog.json, the same entries the server answers from); `/problems` lists them all.
 */
import express, { type Router } from "express";
import { ERROR_CATALOG, type ErrorCode, problemType } from "../errors.ts";

const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const STYLE =
  "body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;color:#1d2433}" +
  "code{background:#f2f4f7;padding:0 .25rem;border-radius:3px}dt{font-weight:600;margin-top:.75rem}a{color:#2452c4}";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`).replace(/`([^`]+)`/g, "<code>$1</code>");

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Service Platform API</title><style>${STYLE}</style></head>
<body>
${body}
<p><a href="/problems">Every error code</a> · <a href="/docs">API reference</a></p>
</body>
</html>
`;
}

const CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

const PAGES = new Map(
  CODES.map((code) => {
    const { status, title, explanation } = ERROR_CATALOG[code];
    const body =
      `<h1>${escapeHtml(title)}</h1>\n<p>HTTP ${status} · code <code>${code}</code></p>\n` +
      `<p>${escapeHtml(explanation)}</p>\n<p>Every error answer is an RFC 9457 <code>application/problem+json</code> ` +
      `body with this page's address as its <code>type</code>, the <code>code</code> to branch on, and a ` +
      `<code>request_id</code> to quote when asking for support.</p>`;
    return [problemType(code), page(escapeHtml(title), body)] as const;
  }),
);

const INDEX = page(
  "Error codes",
  `<h1>Error codes</h1>\n<dl>\n${CODES.map(
    (code) =>
      `<dt><a href="${problemType(code)}"><code>${code}</code></a> (${ERROR_CATALOG[code].status})</dt>` +
      `<dd>${escapeHtml(ERROR_CATALOG[code].title)}</dd>`,
  ).join("\n")}\n</dl>`,
);

export function problemsRouter(): Router {
  const router = express.Router();
  router.get("/problems", (_req, res) => {
    res.setHeader("Content-Security-Policy", CSP).type("html").send(INDEX);
  });
  router.get("/problems/:type", (req, res, next) => {
    const html = PAGES.get(`/problems/${req.params.type}`);
    if (!html) {
      next();
      return;
    }
    res.setHeader("Content-Security-Policy", CSP).setHeader("Cache-Control", "public, max-age=3600");
    res.type("html").send(html);
  });
  return router;
}
