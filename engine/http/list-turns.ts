/**
 * LISTS_PER_USER: how many lists one user has read at once in this process. A list holds a pooled
 * connection while it reads (a streamed one until its last byte is sent, at the pace of the client)
 * and up to its read-ahead budget in memory, so without a bound one user's parallel unpaged lists
 * took the whole pool, and other users' requests waited until they failed. A list beyond the user's
 * share waits for one of theirs to end, as a request waits for a pooled connection, and as long
 * (POOL_ACQUIRE_TIMEOUT_MS); one still waiting then is answered 429 with Retry-After.
 */
import type { Context } from 'koa';
import { throttled } from '../errors.js';

interface Turns {
  active: number;
  /** Each waiting list's start, first come first served. */
  waiting: (() => void)[];
}

export class ListTurns {
  private readonly users = new Map<number, Turns>();

  /** `perUser` 0: no bound; `waitMs` 0: a list waits for its turn as long as it takes. */
  constructor(
    private readonly perUser: number,
    private readonly waitMs: number,
  ) {}

  /** Waits for a turn of `userId`'s, held until `ctx`'s response is done: sent, failed, or left by its client. */
  async take(ctx: Context, userId: number): Promise<void> {
    if (!this.perUser) return;
    let turns = this.users.get(userId);
    if (!turns) this.users.set(userId, (turns = { active: 0, waiting: [] }));
    if (turns.active < this.perUser) turns.active++;
    else await this.queue(ctx, turns);
    const held = turns;
    ctx.res.once('close', () => this.release(userId, held));
  }

  /** A turn ends: handed to the user's next waiting list, or given up. */
  private release(userId: number, turns: Turns): void {
    const next = turns.waiting.shift();
    if (next) return next();
    if (--turns.active === 0) this.users.delete(userId);
  }

  /** Resolves when a turn is handed over; rejects with 429 after `waitMs`, or when the client has gone. */
  private queue(ctx: Context, turns: Turns): Promise<void> {
    return new Promise((resolve, reject) => {
      const seconds = Math.max(1, Math.ceil(this.waitMs / 1000));
      const leave = () => {
        clearTimeout(timer);
        ctx.res.off('close', leave);
        const at = turns.waiting.indexOf(start);
        if (at >= 0) turns.waiting.splice(at, 1);
        // a client gone gets no answer; this one only ends the handling
        reject(throttled(seconds));
      };
      const start = () => {
        clearTimeout(timer);
        ctx.res.off('close', leave);
        resolve();
      };
      const timer = this.waitMs ? setTimeout(leave, this.waitMs) : undefined;
      ctx.res.once('close', leave);
      turns.waiting.push(start);
    });
  }
}
