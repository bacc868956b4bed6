/** Rows as the driver answers them, and id lists as bodies send them. */
export type Row = Record<string, unknown>;

export function rowsOf(result: unknown): Row[] {
  return ((result as { rows?: Row[] }).rows ?? []) as Row[];
}

/** The ids of a body's list, without repeats, in the order sent. */
export function uniqueIds(value: unknown): number[] {
  return [...new Set(value as number[])];
}
