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

/** `server`, serving with `handler` (Koa's callback, whose promise ends with the handling). */
export function drainable(server: http.Server, handler: Handler): Drain {
  const inFlight = new Set<http.ServerResponse>();
  const handling = new Set<Promise<unknown>>();
  let closing = false;

  /** Answers from now on end their connection; an answer whose headers are out still does, when it ends. */
  const endConnectionAfter = (res: http.ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
    res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
  };

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    if (closing) endConnectionAfter(res);
    const handled: Promise<unknown> = Promise.resolve(handler(req, res)).finally(() => handling.delete(handled));
    handling.add(handled);
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
          void Promise.allSettled([...handling]).then(() => {
            clearTimeout(cut);
            resolve(finished);
          });
        });
        for (const res of inFlight) endConnectionAfter(res);
        server.closeIdleConnections();
      });
    },
  };
}
