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

/** Resolves once `check` answers something other than undefined, polling for up to 20 s. */
export async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
