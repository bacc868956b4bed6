/**
 * Token principals kept for a few seconds per token hash, so a warm request costs no query for
 * authentication. An entry never outlives its token's expiry; every change to users, groups or
 * tokens drops them all (principal-changes.ts), in every instance. While changes cannot be heard,
 * nothing is served from here: correctness over speed.
 */
import type { Principal } from './users.js';

/** Enough for every active token of a large installation; the earliest loaded go first (they expire first). */
export const MAX_ENTRIES = 10_000;
/** Changes remembered: far more than can arrive while one is still on its way on another connection. */
const MAX_HEARD = 1_000;

export interface CachedToken {
  principal: Principal;
  tokenId: number;
  /** When `last_used` was last written, as far as this instance knows (ms since the epoch). */
  lastUsed: number;
  /** When the token expires (ms since the epoch), or null. */
  expires: number | null;
}

interface Entry {
  token: CachedToken;
  /** The earlier of the time to live and the token's expiry. */
  deadline: number;
}

export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every invalidation: a load that began before one may have read the old rows. */
  private generation = 0;
  /** Whether changes are heard (the LISTEN connection is up). */
  private listening = false;
  /** Changes acted on: each reaches this process on every connection that listens. */
  private readonly heard = new Set<string>();
  /** Lookups answered from here and not, since start (for /metrics). */
  hits = 0;
  misses = 0;

  /** `ttlMs` 0: nothing is kept. */
  constructor(private readonly ttlMs: number) {}

  /** Whether anything is kept (and so changes need hearing). */
  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  lookup(hash: string, now: number): CachedToken | undefined {
    const token = this.find(hash, now);
    if (token) this.hits++;
    else this.misses++;
    return token;
  }

  private find(hash: string, now: number): CachedToken | undefined {
    if (!this.listening) return undefined;
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    // a hit leaves the Map as it is: deleting and adding an entry on every request made V8 rebuild the
    // Map's table in the old generation each time, and the dead tables' references kept every
    // request's objects alive through two scavenges (docs/performance.md, "Hash tables rebuilt per request")
    if (entry.deadline > now) return entry.token;
    this.entries.delete(hash);
    return undefined;
  }

  /** Call before reading a token's rows; hand the result to `store` with what this returned. */
  beginLoad(): number {
    return this.generation;
  }

  /** Keeps `token`, loaded at `now`, unless something changed since its load began. */
  store(hash: string, token: CachedToken, now: number, loadBegan: number): void {
    if (!this.enabled || !this.listening || loadBegan !== this.generation) return;
    this.entries.set(hash, { token, deadline: Math.min(now + this.ttlMs, token.expires ?? Infinity) });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }

  /** A change notified with `id` (its transaction's): drops everything the first time it is heard. */
  changed(id: string): void {
    if (this.heard.has(id)) return;
    this.heard.add(id);
    if (this.heard.size > MAX_HEARD) this.heard.delete(this.heard.values().next().value!);
    this.invalidate();
  }

  private invalidate(): void {
    this.generation++;
    this.entries.clear();
  }

  /** Changes are heard from now on (true), or may be missed (false); either way what is kept may be stale. */
  setListening(listening: boolean): void {
    this.listening = listening;
    this.invalidate();
  }
}
