/**
 * A spreadsheet's columns as a resource's write body: each header names a write name (`tracker_id`),
 * its read name (`tracker`) or its label in either language (`Tracker`, `Meldekreis`), with or
 * without the template's required mark (` *`); `id` and `remote_key` name the record. Each cell
 * becomes the JSON value the API takes, by the write body's schema (body-schema.ts), so the
 * validator judges it and answers with the contract's messages: an empty cell is not given, numbers
 * and booleans are read as such, links are ids joined by `;`, a choice may be given by its label.
 * A cell that cannot be read as its type is passed on as text, and the validator refuses it.
 */
import { bodySchema } from '../crud/body-schema.js';
import type { ResourceView, ViewEntry } from '../describe/view.js';

/** A cell as a parser hands it over: text (CSV) or a spreadsheet's typed value. */
export type Cell = string | number | boolean | Date | null | undefined;

/** The columns that name a record rather than set a value. */
export const KEYS = ['id', 'remote_key'] as const;
export type ImportKey = (typeof KEYS)[number];

/** The mark the template puts after a required column's header. */
export const REQUIRED_MARK = ' *';

type Schema = { type?: string | string[]; format?: string; items?: Schema };

interface Column {
  /** The write name the column sets, or `id`. */
  name: string;
  read: (cell: Cell) => unknown;
}

/** What a header can say, lower-cased, to the write name. */
function headerNames(view: ResourceView): Map<string, string> {
  const names = new Map<string, string>();
  const add = (said: string, writeName: string) => {
    const key = said.trim().toLowerCase();
    if (!names.has(key)) names.set(key, writeName);
  };
  for (const key of KEYS) add(key, key);
  const writable = view.entries.filter((e) => e.writable);
  // names first, labels after: a label never shadows a name
  for (const e of writable) add(e.writeName, e.writeName);
  for (const e of writable) add(e.name, e.writeName);
  for (const e of writable) for (const label of [e.labels.en, e.labels.de]) add(label, e.writeName);
  return names;
}

const baseType = (schema: Schema): string | undefined => (Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type);

const BOOLEANS = new Map([...['true', 'yes', 'ja', '1', 'x'].map((w) => [w, true] as const), ...['false', 'no', 'nein', '0'].map((w) => [w, false] as const)]);
const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

const text = (cell: Cell): string => (cell instanceof Date ? cell.toISOString() : String(cell));

/** A cell read as a value of `schema`; `choices`: label → value of an enum or state field. */
function readerOf(schema: Schema, choices?: Map<string, string>): (cell: Cell) => unknown {
  switch (baseType(schema)) {
    case 'integer':
      return (cell) => (typeof cell === 'string' && INTEGER.test(cell.trim()) ? Number(cell.trim()) : cell);
    case 'number':
      return (cell) => (typeof cell === 'string' && NUMBER.test(cell.trim()) ? Number(cell.trim()) : cell);
    case 'boolean':
      return (cell) => (typeof cell === 'string' ? (BOOLEANS.get(cell.trim().toLowerCase()) ?? cell) : cell);
    case 'array': {
      const item = readerOf(schema.items ?? {});
      return (cell) => (typeof cell === 'number' ? [cell] : text(cell).split(';').map((s) => s.trim()).filter((s) => s !== '').map(item));
    }
    case 'object':
      return (cell) => {
        try {
          return JSON.parse(text(cell)) as unknown;
        } catch {
          return cell;
        }
      };
    case 'string':
      if (schema.format === 'date') return (cell) => (cell instanceof Date ? cell.toISOString().slice(0, 10) : text(cell));
      if (choices) return (cell) => choices.get(text(cell).trim().toLowerCase()) ?? text(cell);
      return text;
    default:
      // decimals take text or numbers: text keeps every digit
      return (cell) => (typeof cell === 'number' ? String(cell) : cell instanceof Date ? text(cell) : cell);
  }
}

function choicesOf(entry: ViewEntry | undefined): Map<string, string> | undefined {
  if (entry?.kind !== 'field' || !entry.choices) return undefined;
  const map = new Map<string, string>();
  for (const c of entry.choices) for (const said of [c.value, c.labels.en, c.labels.de]) if (!map.has(said.toLowerCase())) map.set(said.toLowerCase(), c.value);
  return map;
}

/** A header's problem, under the header as sent. */
export interface HeaderProblem {
  header: string;
  message: string;
}

/** The header row matched to write names; throws nothing: what cannot be matched is answered as problems. */
export function matchColumns(view: ResourceView, headers: readonly Cell[]): { columns: (Column | undefined)[]; problems: HeaderProblem[] } {
  const names = headerNames(view);
  const schema = bodySchema(view.resource, 'create').properties as Record<string, Schema>;
  const byWriteName = new Map(view.entries.map((e) => [e.writeName, e]));
  const problems: HeaderProblem[] = [];
  const taken = new Set<string>();
  const columns = headers.map((cell): Column | undefined => {
    const header = cell === null || cell === undefined ? '' : text(cell).trim();
    if (header === '') return undefined;
    const said = header.endsWith(REQUIRED_MARK.trim()) ? header.slice(0, -1).trim() : header;
    const name = names.get(said.toLowerCase());
    if (!name) {
      problems.push({ header, message: 'Unknown column: no field has this name or label.' });
      return undefined;
    }
    if (taken.has(name)) {
      problems.push({ header, message: `Another column sets "${name}" already.` });
      return undefined;
    }
    taken.add(name);
    if (name === 'id') return { name, read: readerOf({ type: 'integer' }) };
    return { name, read: readerOf(schema[name] ?? {}, choicesOf(byWriteName.get(name))) };
  });
  return { columns, problems };
}

const empty = (cell: Cell): boolean => cell === null || cell === undefined || (typeof cell === 'string' && cell.trim() === '');

/** One row's body: the non-empty cells of matched columns, by write name. */
export function rowBody(columns: readonly (Column | undefined)[], cells: readonly Cell[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  columns.forEach((column, i) => {
    const cell = cells[i];
    if (column && !empty(cell)) body[column.name] = column.read(cell);
  });
  return body;
}
