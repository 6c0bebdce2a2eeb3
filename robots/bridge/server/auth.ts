/**
 * Who may connect to the bridge and what a client may reach: the server binds off loopback only with a token, a
 * client presents that token in the URL (`?token=…`) or as an `Authorization: Bearer …` header (compared in constant
 * time), and the allowlists (rosbridge's `*_glob` parameters) say which topics, services and actions it may reach.
 */
import type { IncomingMessage } from "node:http";
import { timingSafeEqual } from "node:crypto";
import { allows, type Allowlists } from "../allowlist";

/** The names a client may reach, one matcher per kind. */
export type Allowed = {
  topic: (n: string) => boolean;
  service: (n: string) => boolean;
  action: (n: string) => boolean;
};

export const allowedBy = (allow?: Allowlists): Allowed => ({
  topic: allows(allow?.topics),
  service: allows(allow?.services),
  action: allows(allow?.actions),
});

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
/** A peer address on this machine (IPv4 loopback, IPv6 loopback, or IPv4 loopback mapped into IPv6). */
export const isLoopbackAddress = (a?: string) => !!a && (a === "::1" || /^(?:::ffff:)?127\./.test(a));

/** Throws unless `host` is loopback or clients will have to present a token. */
export function refuseOpenBind(host: string, token?: string): void {
  if (!LOOPBACK.has(host) && !token) {
    throw new Error(
      `refusing to bind ${host} without a token: pass a token (clients present it as ?token=… or Authorization: Bearer …) or bind 127.0.0.1`,
    );
  }
}

/** Whether an upgrade request presents `token` (any request does when there is none). */
export function authorized(req: IncomingMessage, token: string | undefined): boolean {
  if (!token) return true;
  let query: string | null;
  try {
    query = new URL(req.url ?? "/", "http://x").searchParams.get("token");
  } catch {
    return false; // a request line that is not a URL never authenticates
  }
  // The auth scheme is case-insensitive (RFC 7235); an empty `?token=` is no credential and hides no header.
  const header = /^\s*bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
  const expected = Buffer.from(token);
  return [query, header].some((presented) => {
    if (!presented) return false;
    const given = Buffer.from(presented);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
