/**
 * Where the absolute links of an answer (a list's `Link`) point: PUBLIC_URL when it is set;
 * otherwise the host the request named (behind TRUST_PROXY, `X-Forwarded-Host` and
 * `X-Forwarded-Proto`), but only a well-formed `host[:port]` and the scheme `http` or `https`;
 * otherwise the address the request reached. The request's own words are never copied unchecked:
 * `Host: a"><script>` would land in the header as it came.
 */
import net from 'node:net';
import type { Context } from 'koa';

declare module 'koa' {
  interface DefaultContext {
    /** PUBLIC_URL without a trailing slash: the service's address as its clients reach it. */
    publicUrl?: string;
  }
}

/**
 * RFC 3986 `host [":" port]`: a reg-name of unreserved and sub-delim characters (without the
 * percent-encoding no real host name uses and URL parsers decode into forbidden ones) or an IPv6
 * literal; an IPv4 address is a reg-name by its spelling.
 */
const HOST = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]+|\[([0-9A-Fa-f:.]+)\])(?::(\d{1,5}))?$/;

export function isHostAndPort(value: string): boolean {
  const m = HOST.exec(value);
  return m !== null && (m[1] === undefined || net.isIPv6(m[1])) && (m[2] === undefined || Number(m[2]) <= 65535);
}

/** `scheme://host[:port]` (and PUBLIC_URL's path) to put before a path of this service. */
export function linkBase(ctx: Context): string {
  if (ctx.publicUrl) return ctx.publicUrl;
  if (isHostAndPort(ctx.host)) return `${ctx.protocol === 'https' ? 'https' : 'http'}://${ctx.host}`;
  // the socket's own address, which the service serves in plain HTTP
  const { localAddress = '127.0.0.1', localPort } = ctx.req.socket;
  return `http://${net.isIPv6(localAddress) ? `[${localAddress}]` : localAddress}:${localPort}`;
}
