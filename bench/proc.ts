/** Linux /proc readings about processes this program started: their children, memory and CPU time. */
import fs from 'node:fs';

/** The pids of `pid`'s child processes (none once it is gone). */
export function childPids(pid: number): number[] {
  try {
    const tasks = fs.readdirSync(`/proc/${pid}/task`);
    return tasks.flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

export const isRunning = (pid: number): boolean => fs.existsSync(`/proc/${pid}`);

/** Whether `pid` runs and is not a zombie (exited, not yet reaped by its parent: its memory lines are gone). */
function isLive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.charAt(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** `read()` of process `pid`, or undefined when the read failed because the process is gone. */
export function whileRunning<T>(pid: number, read: () => T): T | undefined {
  try {
    return read();
  } catch (err) {
    if (!isLive(pid)) return undefined;
    throw err;
  }
}

/** A `kB` line of /proc/<pid>/status, in bytes. */
function statusBytes(pid: number, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`/proc/${pid}/status has no ${name}`);
  return Number(match[1]) * 1024;
}

/** Starts a new peak for `pid`: its VmHWM drops to the current resident size (Linux's clear_refs 5). */
export function resetPeakRss(pid: number): void {
  fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** The highest resident size of `pid` since it started or since `resetPeakRss`. */
export const peakRss = (pid: number): number => statusBytes(pid, 'VmHWM');

/** The resident size of `pid` now. */
export const rss = (pid: number): number => statusBytes(pid, 'VmRSS');

/** Linux counts CPU time in clock ticks of 1/100 s (USER_HZ) on every architecture it reports it for. */
const MS_PER_TICK = 10;

/** CPU time `pid` has used so far, user and system, in milliseconds. */
export function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // fields after the command name, which may hold spaces: state is the first, utime the 12th, stime the 13th
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
}
