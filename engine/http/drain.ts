/**
 * A prompt, graceful stop of the HTTP server: stop accepting, close idle kept-alive connections at
 * once (a client would otherwise keep one open, and the process up, for the keep-alive timeout),
 * let requests in flight finish with `Connection: close`, closing each connection as its answer
 * ends, and cut what is still open after `timeoutMs`.
 */
import type http from 'node:http';

export interface Drain {
  /** Resolves once every connection is closed: true when all finished, false when some were cut after `timeoutMs`. */
  close(timeoutMs: number): Promise<boolean>;
}

export function drainable(server: http.Server): Drain {
  const inFlight = new Set<http.ServerResponse>();
  let closing = false;

  /** Answers from now on end their connection; an answer whose headers are out still does, when it ends. */
  const endConnectionAfter = (res: http.ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
    res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
  };

  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    if (closing) endConnectionAfter(res);
  });

  return {
    close(timeoutMs) {
      closing = true;
      return new Promise<boolean>((resolve) => {
        let finished = true;
        const cut = setTimeout(() => {
          finished = false;
          server.closeAllConnections();
        }, timeoutMs);
        server.close(() => {
          clearTimeout(cut);
          resolve(finished);
        });
        for (const res of inFlight) endConnectionAfter(res);
        server.closeIdleConnections();
      });
    },
  };
}
