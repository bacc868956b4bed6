/**
 * The select list that turns a row into its JSON record, built once per resource. Formatting
 * happens in SQL (ISO timestamps with Z, dates, decimals as text, many-to-many ids as sorted
 * arrays), so a list is one query and pg and PGlite return identical values.
 */
import type { RecordColumn } from '../declare/engine-table.js';
import type { Field, ManyToManyRef, Resource } from '../registry/resource.js';
import { typeOf } from '../fields/index.js';
import { isoTimestamp } from '../fields/values.js';
import { col, joinFragments, q, frag, type Fragment } from './sql.js';

export const ROW = 't';

function fieldExpression(resource: Resource, f: Field, alias = ROW): string | null {
  const s = f.spec;
  if (s.type === 'enum' && s.derived) {
    const fk = resource.foreignKeys.find((r) => r.name === s.derived!.via)!;
    const cases = Object.entries(s.derived.map)
      .map(([from, to]) => `when '${from.replace(/'/g, "''")}' then '${to.replace(/'/g, "''")}'`)
      .join(' ');
    return `(select case ${col('d', s.derived.field)} ${cases} end from ${q(fk.target.table)} d where d.id = ${col(alias, fk.column)})`;
  }
  return typeOf(s).read(s, col(alias, f.column!));
}

/** SQL expression of a field's value as served (used by select lists, filters and ordering). */
export function expressionOf(resource: Resource, f: Field): string {
  if (f.column === null) return fieldExpression(resource, f)!;
  return col(ROW, f.column);
}

/** An expression of a many-to-many's sorted ids, where the join table cannot be read (links written by the same statement). */
export type LinkExpressions = (m: ManyToManyRef) => string | undefined;

/** One key of a record as served, and the SQL expression of its value. */
export interface SelectPart {
  name: string;
  sql: string;
}

/**
 * The keys of a record of `resource` at row `alias`, in the order they are served; `links` replaces
 * the join-table subqueries of the relations it names.
 */
export function selectParts(resource: Resource, links: LinkExpressions = () => undefined, alias = ROW): SelectPart[] {
  const has = (column: RecordColumn) => resource.recordColumns.includes(column);
  const parts: SelectPart[] = [{ name: 'id', sql: `${alias}.id` }];
  if (has('uuid')) parts.push({ name: 'uuid', sql: `${alias}.uuid::text` });
  for (const f of resource.fields) {
    const expr = f.readable ? fieldExpression(resource, f, alias) : null;
    if (expr) parts.push({ name: f.name, sql: expr });
  }
  for (const fk of resource.foreignKeys) parts.push({ name: fk.name, sql: col(alias, fk.column) });
  for (const m of resource.manyToMany) {
    const { table, sourceColumn, targetColumn } = m.spec;
    const ids = links(m) ?? `array(select j.${q(targetColumn)} from ${q(table)} j where j.${q(sourceColumn)} = ${alias}.id order by 1)`;
    parts.push({ name: m.name, sql: ids });
  }
  const tail: Record<Exclude<RecordColumn, 'uuid'>, string> = {
    created: isoTimestamp(`${alias}.created`),
    modified: isoTimestamp(`${alias}.modified`),
    created_by: `${alias}.created_by`,
    remote_key: `${alias}.remote_key`,
  };
  for (const [name, sql] of Object.entries(tail)) if (has(name as RecordColumn)) parts.push({ name, sql });
  return parts;
}

/** `parts` as a select list. */
export const joinSelectParts = (parts: readonly SelectPart[]): string => parts.map((p) => `${p.sql} as ${q(p.name)}`).join(', ');

/** The select list; `links` replaces the join-table subqueries of the relations it names. */
export function buildSelectList(resource: Resource, links: LinkExpressions = () => undefined): string {
  return joinSelectParts(selectParts(resource, links));
}

const selectLists = new WeakMap<Resource, string>();

/** The select list of `resource` (rows aliased `ROW`), built once. */
export function selectList(resource: Resource): string {
  let s = selectLists.get(resource);
  if (s === undefined) selectLists.set(resource, (s = buildSelectList(resource)));
  return s;
}

/**
 * The records matching `where`, each as the JSON text it is served as, built by PostgreSQL: the
 * process passes the text on without parsing and re-stringifying it. `rest` (ordering, paging) is
 * applied inside, where the row's columns are in scope; the outer select keeps its row order.
 */
export function jsonRecords(resource: Resource, where: readonly Fragment[], rest: Fragment = frag(''), list: Fragment = frag(selectList(resource))): Fragment {
  const cond = joinFragments([...where], 'and');
  return frag(jsonRows(list.sql, `${q(resource.table)} ${ROW} where ${cond.sql} ${rest.sql}`), [...list.bindings, ...cond.bindings, ...rest.bindings]);
}

/** Per resource, the text of its record by id as served to a caller no record rule restricts. */
const plainDetails = new WeakMap<Resource, string>();

/** Record `id` as jsonRecords serves it with no other condition: its text made once per resource, so only the id is new on each read. */
export function recordById(resource: Resource, id: number): Fragment {
  let sql = plainDetails.get(resource);
  if (sql === undefined) {
    const built = jsonRecords(resource, [frag(`${ROW}.id = ?`, [id])]);
    // the id must be the text's only value for the text to be kept with any other id
    if (built.bindings.length !== 1) return built;
    plainDetails.set(resource, (sql = built.sql));
  }
  return frag(sql, [id]);
}

/** `list` over `from` (rows aliased `ROW`, with whatever follows), each row as its JSON text in the column `json`. */
export const jsonRows = (list: string, from: string): string => `select row_to_json(r)::text as json from (select ${list} from ${from}) r`;

/**
 * A list's first records are joined into texts by PostgreSQL, in heads of up to these many: a first
 * one small enough to be sent at once, then the rest of the head.
 */
const HEAD_ROWS = [1_000, 9_000];

/** The records a probe joins (headProbe): as many as the first head. */
export const PROBE_ROWS = HEAD_ROWS[0]!;

/** The rows of `where` in `order` (`count` of them after `skip`), each as its JSON text in the column `json`. */
function jsonRecordsIn(resource: Resource, where: Fragment, order: string, list: Fragment, count: number | undefined, skip: number): Fragment {
  const rows = `${q(resource.table)} ${ROW} where ${where.sql} order by ${order}${count === undefined ? '' : ' limit ?'}${skip ? ' offset ?' : ''}`;
  // rows skipped by an offset would be projected all the same (their subselects too), so a page skips
  // them below the select list; not an unbounded rest, for which the planner then prefers sorting the table
  const from = skip && count !== undefined ? `(select ${ROW}.* from ${rows}) ${ROW} order by ${order}` : rows;
  return frag(`select row_to_json(r)::text as json from (select ${list.sql} from ${from}) r`, [
    ...list.bindings,
    ...where.bindings,
    ...[count, skip || undefined].filter((n) => n !== undefined),
  ]);
}

/** `also`'s columns, each after a comma, or as many nulls (a later row of the list). */
const besides = (also: readonly Fragment[], values = true): Fragment => frag(also.map((a) => `, ${values ? a.sql : 'null'}`).join(''), values ? also.flatMap((a) => a.bindings) : []);

/**
 * The first PROBE_ROWS records of a list, joined into one text as its first row would hold them
 * (`also` beside them), and in a last column how many rows were read, up to one more: more than
 * PROBE_ROWS says the list goes on. One select list instead of listRecords' three, for lists that
 * may hold more than a head, most of which fit in it (text-pieces.ts probedPieces).
 */
export function headProbe(resource: Resource, where: Fragment, order: string, offset: number, also: readonly Fragment[] = [], list: Fragment = frag(selectList(resource))): Fragment {
  const head = jsonRecordsIn(resource, where, order, list, PROBE_ROWS + 1, offset);
  const beside = besides(also);
  return frag(
    `select string_agg(json, ',') filter (where w_n <= ?) as json${beside.sql}, count(*)::int as w_rows ` +
      `from (select json, row_number() over () as w_n from (${head.sql}) h) h`,
    [PROBE_ROWS, ...beside.bindings, ...head.bindings],
  );
}

/**
 * A list's records in their order, `limit` of them after `offset`: the first row holds the first
 * head of the list joined by commas in one text (null when empty), `also` beside it; the second row
 * the second head; each later row one record (`also`'s columns null). The process thus handles one
 * or two texts for a list that fits the heads, as for a single `string_agg`, yet a longer one
 * streams, and its first records come before the rest have been read. A head that may be followed
 * by more is materialised, so PostgreSQL builds each record's JSON once, and the rows beyond it are
 * read only when it was full. UNION ALL branches run in order: none of them can run in parallel
 * (each holds a LIMIT or OFFSET).
 */
export function listRecords(
  resource: Resource,
  where: Fragment,
  order: string,
  limit: number | undefined,
  offset: number,
  also: readonly Fragment[] = [],
  list: Fragment = frag(selectList(resource)),
): Fragment {
  const records = (count: number | undefined, skip: number): Fragment => jsonRecordsIn(resource, where, order, list, count, skip);
  const [first, later] = [besides(also), besides(also, false)];
  if (limit !== undefined && limit <= HEAD_ROWS[0]!) {
    const head = records(limit, offset);
    return frag(`select string_agg(json, ',') as json${first.sql} from (${head.sql}) h`, [...first.bindings, ...head.bindings]);
  }
  // the heads' names and sizes; each runs only when those before it were full
  const heads: { name: string; count: number; records: Fragment }[] = [];
  let skip = offset;
  for (const size of HEAD_ROWS) {
    const count = limit === undefined ? size : Math.min(size, limit - (skip - offset));
    if (count <= 0) break;
    heads.push({ name: `h${heads.length}`, count, records: records(count, skip) });
    skip += count;
  }
  const full = (before: typeof heads) => frag(before.map((h) => `(select count(*) from ${h.name}) = ?`).join(' and '), before.map((h) => h.count));
  const parts: Fragment[] = [frag(`with ${heads.map((h) => `${h.name} as (${h.records.sql})`).join(', ')}`, heads.flatMap((h) => h.records.bindings))];
  heads.forEach((h, i) => {
    const gate = i === 0 ? frag('') : full(heads.slice(0, i));
    const beside = i === 0 ? first : later;
    parts.push(frag(`${i ? ' union all ' : ' '}select string_agg(json, ',') as json${beside.sql} from ${h.name}${i ? ` where ${gate.sql}` : ''}`, [...beside.bindings, ...gate.bindings]));
  });
  const left = limit === undefined ? undefined : limit - (skip - offset);
  if (left === undefined || left > 0) {
    const rest = records(left, skip);
    const gate = full(heads);
    parts.push(frag(` union all select json${later.sql} from (${rest.sql}) x where ${gate.sql}`, [...rest.bindings, ...gate.bindings]));
  }
  return frag(parts.map((p) => p.sql).join(''), parts.flatMap((p) => p.bindings));
}
