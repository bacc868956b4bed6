/**
 * An uploaded sheet's rows, one at a time as the parser streams them (constant memory whatever the
 * file's length): CSV through csv-parse (RFC 4180, a UTF-8 byte-order mark skipped, a formula's
 * escape taken off: formulas.ts), XLSX through
 * exceljs's streaming reader (its first worksheet). Each row carries its number as a spreadsheet
 * shows it (the header is row 1), which is what errors name.
 */
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { badRequest, DetailError } from '../errors.js';
import type { Cell } from './columns.js';
import { loadExcel } from './excel.js';
import { unescapeFormula } from './formulas.js';

export const CSV_TYPE = 'text/csv';
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export type SheetFormat = 'csv' | 'xlsx';

export interface SheetRow {
  /** 1: the header. */
  number: number;
  cells: Cell[];
}

/** The format a media type (or, for a multipart part sent as octets, a file name) names; undefined when neither. */
export function formatOf(mediaType: string, fileName = ''): SheetFormat | undefined {
  const type = mediaType.split(';')[0]!.trim().toLowerCase();
  if (type === CSV_TYPE || type === 'application/csv') return 'csv';
  if (type === XLSX_TYPE) return 'xlsx';
  if (/\.csv$/i.test(fileName)) return 'csv';
  if (/\.xlsx$/i.test(fileName)) return 'xlsx';
  return undefined;
}

export const unsupportedSheet = (given: string) =>
  new DetailError(415, `Unsupported media type "${given}" in request: send ${CSV_TYPE}, ${XLSX_TYPE} or multipart/form-data with one such file.`);

async function* csvRows(bytes: Buffer): AsyncGenerator<SheetRow> {
  const parser = Readable.from([bytes]).pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: false }));
  let number = 0;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      number++;
      yield { number, cells: cells.map(unescapeFormula) };
    }
  } catch (err) {
    throw badRequest(`Malformed CSV (row ${number + 1}): ${(err as Error).message}`);
  }
}

/** A spreadsheet cell's value: rich text as its text, a formula as its result, a link as its text. */
function cellOf(value: unknown): Cell {
  if (value === null || value === undefined || typeof value !== 'object' || value instanceof Date) return value as Cell;
  const v = value as { richText?: { text: string }[]; result?: unknown; text?: unknown; error?: string };
  if (v.richText) return v.richText.map((r) => r.text).join('');
  if ('result' in v) return cellOf(v.result);
  if ('text' in v) return cellOf(v.text);
  return v.error ?? null;
}

async function* xlsxRows(bytes: Buffer): AsyncGenerator<SheetRow> {
  const reader = new (await loadExcel()).stream.xlsx.WorkbookReader(Readable.from([bytes]), { sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'cache', worksheets: 'emit' });
  try {
    for await (const sheet of reader) {
      for await (const row of sheet) {
        // row.values is 1-based and sparse
        const values = row.values as unknown[];
        yield { number: row.number, cells: Array.from({ length: Math.max(0, values.length - 1) }, (_, i) => cellOf(values[i + 1])) };
      }
      // the first worksheet only; the rest of the file is not read
      return;
    }
  } catch (err) {
    if (err instanceof DetailError) throw err;
    throw badRequest(`Malformed XLSX file: ${(err as Error).message}`);
  }
}

export const sheetRows = (bytes: Buffer, format: SheetFormat): AsyncGenerator<SheetRow> => (format === 'csv' ? csvRows(bytes) : xlsxRows(bytes));
