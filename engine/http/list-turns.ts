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

/** Users whose idle turns are kept before they are swept: a Map that gains and loses an entry per list has its table rebuilt in the old generation (docs/performance.md, "Hash tables rebuilt per request"). */
const KEPT_USERS = 1000;

export class ListTurns {
  private readonly users = new Map<number, Turns>();

  /** `perUser` 0: no bound; `waitMs` 0: a list waits for its turn as long as it takes. */
  constructor(
    private readonly perUser: number,
    private readonly waitMs: number,
  ) {}

  /** A turn of `userId`'s, held until `ctx`'s response is done: sent, failed, or left by its client; a promise only when it must wait. */
  take(ctx: Context, userId: number): Promise<void> | undefined {
    if (!this.perUser) return undefined;
    let turns = this.users.get(userId);
    if (!turns) {
      if (this.users.size >= KEPT_USERS) this.sweep();
      this.users.set(userId, (turns = { active: 0, waiting: [] }));
    }
    if (turns.active < this.perUser) {
      turns.active++;
      this.holdUntilDone(ctx, turns);
      return undefined;
    }
    return this.queue(ctx, turns);
  }

  /** Forgets the users with no list running. */
  private sweep(): void {
    for (const [userId, turns] of this.users) if (turns.active === 0) this.users.delete(userId);
  }

  /**
   * From the moment a turn is `ctx`'s: its response's end gives it back. Listened for in the same
   * turn of the event loop as the hand-over: a response that ends before the awaiting handler
   * resumes (its client gone while another list ended) would otherwise keep the turn for ever.
   */
  private holdUntilDone(ctx: Context, turns: Turns): void {
    ctx.res.once('close', () => release(turns));
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
        this.holdUntilDone(ctx, turns);
        resolve();
      };
      const timer = this.waitMs ? setTimeout(leave, this.waitMs) : undefined;
      ctx.res.once('close', leave);
      turns.waiting.push(start);
    });
  }
}

/** A turn ends: handed to the user's next waiting list, or given up (the user's entry kept until a sweep). */
function release(turns: Turns): void {
  const next = turns.waiting.shift();
  if (next) next();
  else turns.active--;
}
