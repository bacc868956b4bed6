/**
 * The embedded database serves one process: PGlite keeps no lock of its own, and a second process
 * opening the same directory corrupts it. Every process that opens the directory holds
 * `bms.lock` in it for as long as its database client lives; a second one is refused at once,
 * naming the holder. A lock left by a process that no longer runs is taken over.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StartupError } from '../startup-error.js';

export const LOCK_FILE = 'bms.lock';

interface Holder {
  pid: number;
  hostname: string;
  since: string;
  command: string;
}

/** Refused because another live process holds the directory; its message says what to do. */
export class DataDirLockedError extends StartupError {
  constructor(dir: string, holder: Holder) {
    super(
      `The embedded database in ${dir} is in use by process ${holder.pid} (${holder.command}, since ${holder.since}). ` +
        'It serves one process at a time: stop that process first, or set DATABASE_URL to use a PostgreSQL server, which serves many.',
    );
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, under another user
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock file as read: its inode and bytes identify it, so a replacement under the same name is told apart. */
interface Seen {
  ino: number;
  text: string;
}

function read(file: string): Seen | undefined {
  try {
    return { ino: fs.statSync(file).ino, text: fs.readFileSync(file, 'utf8') };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function holderOf(seen: Seen | undefined): Holder | undefined {
  try {
    return seen && (JSON.parse(seen.text) as Holder);
  } catch {
    // unreadable: treated as a stale lock (a lock appears whole, by link, so it is never half-written)
    return undefined;
  }
}

/** Whether `link(from, to)` made `to`; false if `to` exists (or `from` is gone, with `missingToo`). */
function linked(from: string, to: string, missingToo = false): boolean {
  try {
    fs.linkSync(from, to);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || (missingToo && code === 'ENOENT')) return false;
    throw err;
  }
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** How often a start tries again while another process is taking over the same stale lock. */
const TAKEOVER_ATTEMPTS = 50;
const TAKEOVER_PAUSE_MS = 20;

/**
 * Removes the stale lock `seen`, if it is still the one at `file`. Several processes may find the
 * same stale lock at once: each tries to link it under a name of its own inode, which only one can
 * make, and only while that name exists may a lock be removed. The winner checks that the name holds
 * the lock it judged stale (same inode and bytes) before removing `file`: a lock at `file` changes
 * only by being removed under such a claim, so nothing else can have taken its place meanwhile.
 * False when another process holds the claim.
 */
function removeStale(file: string, seen: Seen): boolean {
  const claim = `${file}.${seen.ino}.takeover`;
  if (!linked(file, claim, true)) return false;
  try {
    const claimed = read(claim);
    if (claimed?.ino === seen.ino && claimed.text === seen.text) fs.unlinkSync(file);
    return true;
  } finally {
    fs.rmSync(claim, { force: true });
  }
}

/** Takes the directory for this process; returns the release function. Throws DataDirLockedError. */
export function lockDataDir(dir: string): () => void {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, LOCK_FILE);
  const me: Holder = { pid: process.pid, hostname: os.hostname(), since: new Date().toISOString(), command: process.argv.slice(1).join(' ') };
  // a complete file appears at once (link is atomic and fails if the lock exists): no half-written lock
  const draft = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(draft, JSON.stringify(me));
  try {
    for (let attempt = 0; attempt < TAKEOVER_ATTEMPTS; attempt++) {
      if (linked(draft, file)) return holding(file);
      const seen = read(file);
      // gone meanwhile: released, or taken over by another start; try again
      if (!seen) continue;
      const holder = holderOf(seen);
      const elsewhere = holder !== undefined && holder.hostname !== me.hostname;
      if (holder && (elsewhere || running(holder.pid))) throw new DataDirLockedError(dir, holder);
      if (!removeStale(file, seen)) pause(TAKEOVER_PAUSE_MS);
    }
  } finally {
    fs.rmSync(draft, { force: true });
  }
  throw new StartupError(
    `The embedded database in ${dir} has a stale lock that another process keeps taking over. ` +
      `If no other process is starting on it, remove ${file} and ${file}.*.takeover.`,
  );
}

/** The release of the lock this process holds at `file`: removed at exit at the latest. */
function holding(file: string): () => void {
  const release = () => {
    if (holderOf(read(file))?.pid === process.pid) fs.rmSync(file, { force: true });
    process.off('exit', release);
  };
  process.on('exit', release);
  return release;
}
