/**
 * The local receiver's certificates, made with `selfsigned` (no openssl): a certificate authority kept in a folder
 * (`ca.pem`, `ca-key.pem`), so that a restart of the receiver keeps the CA that the service was started to trust
 * (NODE_EXTRA_CA_CERTS is read once, when a process starts), and a server certificate for 127.0.0.1, localhost and
 * ::1 (and any further IP addresses asked for), issued by that CA at every start and kept in memory only.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { generate } from "selfsigned";

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a new CA lasts. */
const CA_LIFETIME_DAYS = 2 * 365;
/** A CA that ends sooner than this is replaced at start, so that a running receiver never outlives its CA. */
const CA_RENEW_BEFORE_DAYS = 30;

export interface ReceiverCertificates {
  /** The CA certificate's file: what NODE_EXTRA_CA_CERTS names. */
  caFile: string;
  /** Whether the CA was made at this start (a service trusting the previous one must be restarted). */
  caCreated: boolean;
  /** The server's key and certificate (PEM), for https.createServer. */
  key: string;
  cert: string;
}

/** The CA in `dir` when it is whole, matches its key and lasts long enough; undefined otherwise. */
function existingCa(certFile: string, keyFile: string, now: number): { cert: string; key: string } | undefined {
  if (!existsSync(certFile) || !existsSync(keyFile)) return undefined;
  try {
    const cert = readFileSync(certFile, "utf8");
    const key = readFileSync(keyFile, "utf8");
    const parsed = new X509Certificate(cert);
    const lastsLongEnough = Date.parse(parsed.validTo) - now > CA_RENEW_BEFORE_DAYS * DAY_MS;
    if (!parsed.ca || !lastsLongEnough || !parsed.checkPrivateKey(createPrivateKey(key))) return undefined;
    return { cert, key };
  } catch {
    return undefined; // unreadable or not PEM: make a new one
  }
}

export async function loadCertificates(
  dir: string,
  now = Date.now(),
  /** Further IP addresses the server certificate names (a receiver on another host). */
  addresses: readonly string[] = [],
): Promise<ReceiverCertificates> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caFile = join(dir, "ca.pem");
  const caKeyFile = join(dir, "ca-key.pem");
  let ca = existingCa(caFile, caKeyFile, now);
  const caCreated = ca === undefined;
  if (!ca) {
    const made = await generate([{ name: "commonName", value: `Local webhook receiver CA (${hostname()})` }], {
      keyType: "ec",
      algorithm: "sha256",
      notBeforeDate: new Date(now - DAY_MS),
      notAfterDate: new Date(now + CA_LIFETIME_DAYS * DAY_MS),
      extensions: [
        // pathLenConstraint 0: it issues server certificates only, never another CA.
        { name: "basicConstraints", cA: true, pathLenConstraint: 0, critical: true },
        { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
      ],
    });
    ca = { cert: made.cert, key: made.private };
    writeFileSync(caKeyFile, ca.key, { mode: 0o600 });
    chmodSync(caKeyFile, 0o600);
    writeFileSync(caFile, ca.cert);
  }
  const server = await generate([{ name: "commonName", value: "localhost" }], {
    keyType: "ec",
    algorithm: "sha256",
    notBeforeDate: new Date(now - DAY_MS),
    notAfterDate: new Date(Date.parse(new X509Certificate(ca.cert).validTo)),
    ca,
    extensions: [
      { name: "basicConstraints", cA: false, critical: true },
      { name: "keyUsage", digitalSignature: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [
          { type: 7, ip: "127.0.0.1" },
          { type: 2, value: "localhost" },
          { type: 7, ip: "::1" },
          ...addresses.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  return { caFile, caCreated, key: server.private, cert: server.cert };
}
