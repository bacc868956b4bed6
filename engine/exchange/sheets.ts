/**
 * An uploaded sheet's rows, one at a time as the parser streams them (constant memory whatever the
 * file's length): CSV through csv-parse (RFC 4180, a UTF-8 byte-order mark skipped, a formula's
 * escape taken off: formulas.ts), XLSX through
 * exceljs's sheet reader (the first worksheet in tab order). Each row carries its number as a spreadsheet
 * shows it (the header is row 1), which is what errors name.
 */
import { Readable } from 'node:stream';
import { badRequest, DetailError } from '../errors.js';
import type { Cell } from './columns.js';
import { loadExcel, openArchive } from './excel.js';
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
  const { parse } = await import('csv-parse');
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

/** The parts of exceljs's WorkbookReader that read one entry each (not in its typings). */
interface WorkbookParts {
  model?: { sheets?: { rId: string }[] };
  workbookRels?: { Id: string; Target: string }[];
  _parseRels(entry: Readable): Promise<void>;
  _parseWorkbook(entry: Readable): Promise<void>;
  _parseSharedStrings(entry: Readable): AsyncGenerator<unknown>;
  _parseStyles(entry: Readable): Promise<void>;
  _parseWorksheet(rows: AsyncIterable<unknown>, sheetNo: string): Generator<{ value: AsyncIterable<{ number: number; values: unknown }> }>;
}

/** The archive path of the workbook's first sheet in tab order (a relation's target is relative to xl/ unless absolute). */
function firstSheetPath(book: WorkbookParts): string | undefined {
  const first = book.model?.sheets?.[0];
  const target = first && book.workbookRels?.find((rel) => rel.Id === first.rId)?.Target;
  if (!target) return undefined;
  return target.startsWith('/') ? target.slice(1) : `xl/${target}`;
}

/**
 * Not exceljs's WorkbookReader.parse: it reads the archive in one streaming pass and now and then
 * loses its last entry (exceljs#3064), which is xl/workbook.xml in the files exceljs itself writes,
 * and then fails on the sheet. The bytes are in memory anyway, so the archive is opened by its
 * central directory and the reader's parts get the entries in the order they depend on; the sheet
 * is still inflated and parsed row by row.
 */
async function* xlsxRows(bytes: Buffer): AsyncGenerator<SheetRow> {
  try {
    const archive = await openArchive(bytes).catch(() => {
      throw badRequest('Malformed XLSX file: it is not a ZIP archive.');
    });
    const entry = (path: string) => archive.files.find((file) => file.path === path)?.stream();
    const book = new (await loadExcel()).stream.xlsx.WorkbookReader(Readable.from([]), { sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'cache', worksheets: 'emit' }) as unknown as WorkbookParts;
    const relations = entry('xl/_rels/workbook.xml.rels');
    const workbook = entry('xl/workbook.xml');
    if (!relations || !workbook) throw badRequest('Malformed XLSX file: it has no workbook (xl/workbook.xml and its relations).');
    await book._parseRels(relations);
    await book._parseWorkbook(workbook);
    const strings = entry('xl/sharedStrings.xml');
    // with sharedStrings: 'cache' it keeps the strings and yields nothing
    if (strings) await book._parseSharedStrings(strings).next();
    const styles = entry('xl/styles.xml');
    if (styles) await book._parseStyles(styles);
    const path = firstSheetPath(book);
    const sheet = path && entry(path);
    if (!sheet) throw badRequest('Malformed XLSX file: it has no worksheet.');
    for (const { value: rows } of book._parseWorksheet(sheet, path.replace(/\D+/g, ''))) {
      for await (const row of rows) {
        // row.values is 1-based and sparse
        const values = row.values as unknown[];
        yield { number: row.number, cells: Array.from({ length: Math.max(0, values.length - 1) }, (_, i) => cellOf(values[i + 1])) };
      }
    }
  } catch (err) {
    if (err instanceof DetailError) throw err;
    throw badRequest(`Malformed XLSX file: ${(err as Error).message}`);
  }
}

export const sheetRows = (bytes: Buffer, format: SheetFormat): AsyncGenerator<SheetRow> => (format === 'csv' ? csvRows(bytes) : xlsxRows(bytes));
