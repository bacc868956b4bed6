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

function readHolder(file: string): Holder | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Holder;
  } catch {
    // unreadable or half-written: treated as a stale lock
    return undefined;
  }
}

/** Takes the directory for this process; returns the release function. Throws DataDirLockedError. */
export function lockDataDir(dir: string): () => void {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, LOCK_FILE);
  const me: Holder = { pid: process.pid, hostname: os.hostname(), since: new Date().toISOString(), command: process.argv.slice(1).join(' ') };
  for (let attempt = 0; attempt < 2; attempt++) {
    // a complete file appears at once (link is atomic and fails if the lock exists): no half-written lock
    const draft = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(draft, JSON.stringify(me));
    try {
      fs.linkSync(draft, file);
      fs.unlinkSync(draft);
      const release = () => {
        if (readHolder(file)?.pid === process.pid) fs.rmSync(file, { force: true });
        process.off('exit', release);
      };
      process.on('exit', release);
      return release;
    } catch (err) {
      fs.unlinkSync(draft);
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readHolder(file);
    const elsewhere = holder !== undefined && holder.hostname !== me.hostname;
    if (holder && (elsewhere || running(holder.pid))) throw new DataDirLockedError(dir, holder);
    fs.rmSync(file, { force: true });
  }
  throw new DataDirLockedError(dir, readHolder(file) ?? { pid: 0, hostname: '?', since: '?', command: 'unknown' });
}
