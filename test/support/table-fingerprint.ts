/**
 * A fingerprint of every table (its row count and the newest transaction that wrote one of its
 * rows), taken in one query: equal fingerprints before and after a batch of requests mean the
 * batch stored, changed and deleted nothing.
 */
import type { Knex } from 'knex';

/** Tables that change by design without any record changing: token use, failed sign-ins, sessions. */
const BOOKKEEPING = ['api_tokens', 'login_failures', 'sessions'];
/** Rows that are written by design by a refused request: the audit trail's security events (a failed sign-in); its write entries count. */
const COUNTED_ROWS: Record<string, string> = { audit_entries: `where action in ('create', 'update', 'delete')` };

export class TableFingerprint {
  private constructor(
    private readonly db: Knex,
    private readonly sql: string,
  ) {}

  static async of(db: Knex): Promise<TableFingerprint> {
    const tables = ((await db('information_schema.tables')
      .where({ table_schema: db.raw('current_schema()'), table_type: 'BASE TABLE' })
      .whereNotIn('table_name', BOOKKEEPING)
      .orderBy('table_name')
      .pluck('table_name')) as string[]);
    // a write leaves a row version with a newer transaction id (xmin), a delete a lower count
    const parts = tables.map((t) => `select '${t}' as name, count(*)::int as n, coalesce(max(xmin::text::bigint), 0)::text as x from "${t}" ${COUNTED_ROWS[t] ?? ''}`);
    return new TableFingerprint(db, parts.join(' union all '));
  }

  /** Table → what its fingerprint is. */
  async take(): Promise<Map<string, string>> {
    const rows = ((await this.db.raw(this.sql)) as { rows: { name: string; n: number; x: string }[] }).rows;
    return new Map(rows.map((r) => [r.name, `${r.n} rows, newest written by transaction ${r.x}`]));
  }
}

/** The tables whose fingerprint differs, with both. */
export function changedTables(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...before].filter(([t, v]) => after.get(t) !== v).map(([t, v]) => `${t}: ${v} → ${after.get(t)}`);
}
