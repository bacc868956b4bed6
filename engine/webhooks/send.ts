/**
 * One delivery attempt: the JSON body POSTed with its event, delivery id and HMAC-SHA256 signature,
 * 10 s at most. Only http and https; unless private addresses are allowed, the host's addresses are
 * checked as the connection resolves them (so a name cannot resolve to a public address for a check
 * and to a private one for the connection), and a literal address before connecting.
 */
import { createHmac } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

export const DELIVERY_TIMEOUT_MS = 10_000;

/** Loopback, private, link-local, shared, unspecified and multicast ranges of both families. */
const PRIVATE = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 3],
] as const)
  PRIVATE.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(prefix, bits, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  const family = net.isIP(address);
  return family === 0 || PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const refusal = (host: string) => new Error(`${host} is a loopback, private or link-local address (WEBHOOK_ALLOW_PRIVATE=true allows it)`);

/** dns.lookup, refusing a private answer. */
const publicLookup: net.LookupFunction = (host, options, callback) => {
  dns.lookup(host, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const all = addresses as dns.LookupAddress[];
    const bad = all.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(refusal(`${host} (${bad.address})`), '', 0);
    if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, all);
    callback(null, all[0]!.address, all[0]!.family);
  });
};

export interface Delivery {
  url: string;
  secret: string;
  event: string;
  id: string;
  body: string;
}

export const signature = (secret: string, body: string): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** Resolves when the receiver answers 2xx; rejects with a short reason otherwise. */
export function send(d: Delivery, allowPrivate: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const url = new URL(d.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return reject(new Error(`${url.protocol} is not http or https`));
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!allowPrivate && net.isIP(host) && isPrivateAddress(host)) return reject(refusal(host));
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(d.body),
        'User-Agent': 'bms-webhooks',
        'X-BMS-Event': d.event,
        'X-BMS-Delivery': d.id,
        'X-BMS-Signature': signature(d.secret, d.body),
      },
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      ...(allowPrivate ? {} : { lookup: publicLookup }),
    });
    request.on('response', (res) => {
      // the status decides; the body is drained unread, so a receiver that stalls it cannot hold the dispatcher
      res.resume();
      res.on('error', () => undefined);
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) resolve();
      else reject(new Error(`HTTP ${status}`));
    });
    request.on('error', (err) => reject(err.name === 'AbortError' || err.name === 'TimeoutError' ? new Error(`no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`) : err));
    request.end(d.body);
  });
}
