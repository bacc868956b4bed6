/**
 * A prompt, graceful stop of the HTTP server: stop accepting, close idle kept-alive connections at
 * once (a client would otherwise keep one open, and the process up, for the keep-alive timeout),
 * let requests in flight finish with `Connection: close`, closing each connection as its answer
 * ends, and cut what is still open after `timeoutMs`. A request whose client has gone is still
 * waited for: its handler may be mid-way through a write, and the pool must outlive it.
 */
import type http from 'node:http';

export interface Drain {
  /** Resolves once every connection is closed and every handler has ended: true when all finished, false when some were cut after `timeoutMs`. */
  close(timeoutMs: number): Promise<boolean>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => unknown;

/**
 * A response in flight, linked between its neighbours. Not a Set: a long-lived Set or Map that
 * gains and loses an entry per request has its table rebuilt in V8's old generation again and
 * again, and each dead table's references kept that request's objects (the response, Koa's
 * context) alive through scavenges into the old generation, doubling the collector's work
 * (docs/performance.md, "Hash tables rebuilt per request"). Links are overwritten in place instead.
 */
interface InFlight {
  res: http.ServerResponse | undefined;
  prev: InFlight;
  next: InFlight;
}

function unlink(entry: InFlight): void {
  entry.prev.next = entry.next;
  entry.next.prev = entry.prev;
  // an entry promoted with a slow request must not keep its young neighbours once it is dead
  entry.prev = entry.next = entry;
  entry.res = undefined;
}

/** `server`, serving with `handler` (Koa's callback, whose promise ends with the handling). */
export function drainable(server: http.Server, handler: Handler): Drain {
  const inFlight = { res: undefined } as InFlight;
  inFlight.prev = inFlight.next = inFlight;
  let handling = 0;
  let idle: (() => void) | undefined;
  let closing = false;

  /** Answers from now on end their connection; an answer whose headers are out still does, when it ends. */
  const endConnectionAfter = (res: http.ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
    res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
  };
  const handled = () => {
    if (--handling === 0) idle?.();
  };

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const entry: InFlight = { res, prev: inFlight.prev, next: inFlight };
    inFlight.prev.next = entry;
    inFlight.prev = entry;
    res.once('close', () => unlink(entry));
    if (closing) endConnectionAfter(res);
    handling++;
    Promise.resolve(handler(req, res)).then(handled, handled);
  });

  return {
    close(timeoutMs) {
      closing = true;
      return new Promise<boolean>((resolve) => {
        let finished = true;
        const cut = setTimeout(() => {
          finished = false;
          server.closeAllConnections();
          resolve(false);
        }, timeoutMs);
        server.close(() => {
          idle = () => {
            clearTimeout(cut);
            resolve(finished);
          };
          if (handling === 0) idle();
        });
        for (let entry = inFlight.next; entry !== inFlight; entry = entry.next) endConnectionAfter(entry.res!);
        server.closeIdleConnections();
      });
    },
  };
}
