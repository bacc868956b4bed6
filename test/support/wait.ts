/** Waiting for what another process or server does in its own time, without a fixed sleep. */

/** Whether `holds` comes true within `ms`, asked again every few milliseconds. */
export async function within(ms: number, holds: () => Promise<boolean>): Promise<boolean> {
  const started = Date.now();
  while (!(await holds())) {
    if (Date.now() - started > ms) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
  return true;
}
