/** What the server does with the rest of a body it refused (413) before reading it all. */
import type { Context } from 'koa';

/** How long the rest of a refused body is read and dropped, so the client can read the answer before the connection closes. */
const DRAIN_MS = 2000;

/** The answer goes out at once; what the client still sends is dropped, then the connection closes. */
export function dropRestOfBody(ctx: Context): void {
  ctx.set('Connection', 'close');
  ctx.req.unpipe();
  ctx.req.resume();
  setTimeout(() => ctx.req.socket.destroy(), DRAIN_MS).unref();
}
