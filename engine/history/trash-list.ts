/**
 * The trash's list and detail (until the trash is an engine table, declare/engine-table.ts, whose
 * restore and purge are actions beside its routes): newest first, filters by exact value or time bounds parsed by the field
 * types, `limit`/`offset` paging, and a visibility condition the caller passes. Records come as
 * JSON built by SQL from `json`, an expression over the alias `e`.
 */
import type { Knex } from 'knex';
import { emptyMap, ValidationError, type FieldErrors } from '../errors.js';
import type { FieldSpec } from '../declare/index.js';
import { typeOf } from '../fields/index.js';
import { frag, joinFragments, type Fragment } from '../storage/sql.js';
import { rowsOf } from '../crud/rows.js';
import { parsePaging } from '../crud/list-paging.js';

/** A list parameter: `exact` compares the column with a value of `type`; `from`/`to` bound a time. */
export interface TableFilter {
  param: string;
  column: string;
  type: FieldSpec;
  op: 'exact' | 'from' | 'to';
}

/** Records a page holds unless `limit` says otherwise, and at most. */
const PAGE = 100;
const MAX_PAGE = 1000;

export class TableList {
  constructor(
    private readonly db: Knex,
    private readonly table: string,
    private readonly json: string,
    private readonly filters: readonly TableFilter[],
  ) {}

  private conditions(query: Record<string, string>, errors: FieldErrors): Fragment[] {
    const where: Fragment[] = [];
    for (const f of this.filters) {
      const raw = query[f.param];
      if (raw === undefined) continue;
      const type = typeOf(f.type);
      const parsed = f.op === 'exact' || !type.bound ? type.filterValue(f.type, raw) : type.bound.parse(raw);
      if (!parsed.ok) errors[f.param] = [parsed.message];
      else if (f.op === 'exact') where.push(frag(`e.${f.column} = ?${type.cast ?? ''}`, [parsed.value]));
      else where.push(type.bound!.where(`e.${f.column}`, f.op === 'from' ? '>=' : '<=', parsed.value));
    }
    return where;
  }

  /** One page of the records `visible` admits; `more`: a next page may exist. */
  async list(query: Record<string, string>, visible: Fragment[]): Promise<{ records: unknown[]; limit: number; offset: number; more: boolean }> {
    const errors: FieldErrors = emptyMap();
    const where = this.conditions(query, errors);
    const paging = parsePaging(query, undefined, errors);
    if (paging.limit !== undefined && (paging.limit < 1 || paging.limit > MAX_PAGE)) errors.limit = [`Ensure this value is between 1 and ${MAX_PAGE}.`];
    if (Object.keys(errors).length) throw new ValidationError(errors);
    const [limit, offset] = [paging.limit ?? PAGE, paging.offset ?? 0];
    const cond = joinFragments([...where, ...visible], 'and');
    const sql = `select ${this.json} as json from ${this.table} e where ${cond.sql} order by e.id desc limit ${limit + 1} offset ${offset}`;
    const rows = rowsOf(await this.db.raw(sql, cond.bindings as Knex.RawBinding[])).map((r) => r.json);
    return { records: rows.slice(0, limit), limit, offset, more: rows.length > limit };
  }

  async detail(id: number, visible: Fragment[]): Promise<unknown> {
    const cond = joinFragments([frag('e.id = ?', [id]), ...visible], 'and');
    return rowsOf(await this.db.raw(`select ${this.json} as json from ${this.table} e where ${cond.sql}`, cond.bindings as Knex.RawBinding[]))[0]?.json;
  }
}
