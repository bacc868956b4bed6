/**
 * Lists as CSV (RFC 4180: CRLF line ends, UTF-8, a BOM with `bom=true` for Excel) or XLSX: the same
 * list request (filters, search, ordering, paging, `fields`, visibility, field masks), its records
 * read from the list's stream one piece at a time and written as they come, so an export of any
 * length takes the memory of a few pieces. CSV's quoting is csv-stringify's; the workbook is
 * xlsx-writer.ts's.
 */
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { create as contentDisposition } from 'content-disposition';
import type { Principal } from '../auth/users.js';
import { fieldMask } from '../access/field-permissions.js';
import type { ResourceService } from '../crud/service.js';
import { ValidationError } from '../errors.js';
import { parseChoice } from '../fields/values.js';
import { listHeaders } from '../http/list-headers.js';
import { revealValues } from '../storage/field-encryption.js';
import { escapeFormula } from '../exchange/formulas.js';
import { exportColumns, type Cell, type ExportColumn } from './export-columns.js';
import { recordSlices } from './record-slices.js';
import { sheetName, xlsxStream } from './xlsx-writer.js';

export const EXPORT_TYPES = { csv: 'text/csv', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' } as const;
export type ExportFormat = keyof typeof EXPORT_TYPES;
export const FORMATS = ['json', ...(Object.keys(EXPORT_TYPES) as ExportFormat[])] as const;

/** The export a list request asks for: `format=`, else an Accept preferring CSV or XLSX to JSON; undefined: the JSON list. */
export function exportFormat(ctx: Context, query: Record<string, string>): ExportFormat | undefined {
  const { format } = query;
  if (format !== undefined) {
    if (!(FORMATS as readonly string[]).includes(format)) throw ValidationError.field('format', `Unknown format "${format}": use ${FORMATS.join(', ')}.`);
    return format === 'json' ? undefined : (format as ExportFormat);
  }
  const type = ctx.accepts('application/json', EXPORT_TYPES.csv, EXPORT_TYPES.xlsx);
  return (Object.keys(EXPORT_TYPES) as ExportFormat[]).find((f) => EXPORT_TYPES[f] === type);
}

type Rows = AsyncGenerator<Cell[][], void>;

/** The records of the list's pieces (records joined by commas) as rows of cells, a slice of a piece at a time. */
async function* rowsOf(pieces: AsyncIterator<string, void>, first: IteratorResult<string, void>, columns: readonly ExportColumn[]): Rows {
  try {
    for (let next = first; !next.done; next = await pieces.next()) {
      for (const slice of recordSlices(revealValues(next.value))) yield (JSON.parse(slice) as Record<string, unknown>[]).map((r) => columns.map((c) => c.cell(r)));
    }
  } finally {
    await pieces.return?.();
  }
}

const csvText = (cell: Cell): string => (cell === null ? '' : typeof cell === 'object' ? cell.decimal : String(cell));
// a lone CR or LF in a field is quoted too: csv-stringify quotes only the record delimiter (CRLF) by itself
const CSV = { record_delimiter: 'windows', quoted_match: /[\r\n]/ } as const;

/** A cell's CSV text with a formula's first character escaped: only texts, never a number, decimal or boolean. */
const escapedText = (cell: Cell): string => (typeof cell === 'string' ? escapeFormula(cell) : csvText(cell));

async function* csvChunks(rows: Rows, headers: string[], bom: boolean, escape: boolean): AsyncGenerator<string> {
  const text = escape ? escapedText : csvText;
  const { stringify } = await import('csv-stringify/sync');
  yield stringify([headers.map(text)], { ...CSV, bom });
  for await (const batch of rows) yield stringify(batch.map((row) => row.map(text)), CSV);
}

/** A `true|false` parameter of the export (absent: false); a 400 naming it otherwise. */
function flag(query: Record<string, string>, name: string): boolean {
  if (query[name] === undefined) return false;
  const given = parseChoice(query[name], ['true', 'false']);
  if (!given.ok) throw ValidationError.field(name, given.message);
  return given.value === 'true';
}

/** Answers the list `query` asks for as a `format` file. */
export async function sendExport(ctx: Context, service: ResourceService, user: Principal, query: Record<string, string>, format: ExportFormat): Promise<void> {
  const [bom, escape] = [flag(query, 'bom'), flag(query, 'escape_formulas')];
  const { columns, expand } = exportColumns(service, fieldMask(service.resource, user), query.fields);
  const answer = await service.list(user, { ...query, expand: expand.join(',') });
  const pieces = answer.records[Symbol.asyncIterator]();
  // the first piece before the status, so a failing query still gets its error answer
  const first = await pieces.next().catch(async (err: unknown) => {
    await pieces.return?.();
    throw err;
  });
  const rows = rowsOf(pieces, first, columns);
  const headers = columns.map((c) => c.header);
  ctx.set(listHeaders(ctx, answer));
  ctx.set('Content-Disposition', contentDisposition(`${service.resource.key.replace(/\//g, '-')}.${format}`));
  ctx.type = format === 'csv' ? `${EXPORT_TYPES.csv}; charset=utf-8; header=present` : EXPORT_TYPES.xlsx;
  // a piece's rows (one chunk of CSV read ahead), or a chunk or two of the workbook's bytes, are the most an export holds beside what the socket does
  const body = format === 'csv' ? Readable.from(csvChunks(rows, headers, bom, escape), { highWaterMark: 1 }) : xlsxStream(sheetName(service.resource.title), headers, rows);
  // a body never read never starts its generator: its end lets the statement and its connection go in every case
  body.once('close', () => void pieces.return?.());
  ctx.body = body;
}
