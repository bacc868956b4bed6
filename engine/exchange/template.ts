/**
 * An import template per resource (`GET {resource}/import/template?format=xlsx|csv`): one column per
 * field the caller may set (their field permissions applied), headed by its write name, required
 * ones marked ` *` (the import reads the header with or without the mark), then `remote_key`. The
 * XLSX one also carries each column's label and description as a note, and the values of choices
 * and yes/no fields as a drop-down list (data validation over a hidden sheet of values).
 */
import type ExcelJS from 'exceljs';
import { loadExcel, type ExcelJS as Excel } from './excel.js';
import type { ViewEntry } from '../describe/view.js';
import { REQUIRED_MARK } from './columns.js';
import type { SheetFormat } from './sheets.js';
import { sheetName } from '../reporting/xlsx-writer.js';

/** Data rows the drop-down lists cover. */
const VALIDATED_ROWS = 10_000;

interface TemplateColumn {
  header: string;
  note: string;
  /** The values a drop-down list offers. */
  values?: string[];
}

function columnOf(e: ViewEntry): TemplateColumn {
  const header = `${e.writeName}${e.required ? REQUIRED_MARK : ''}`;
  const what = e.kind === 'm2m' ? ' Ids separated by ";".' : e.kind === 'fk' ? ' An id.' : '';
  const note = `${e.label}${e.required ? ' (required)' : ''}: ${e.description}${what}`;
  if (e.kind !== 'field') return { header, note };
  if (e.choices) return { header, note, values: e.choices.map((c) => c.value) };
  if (e.spec.type === 'boolean') return { header, note, values: ['true', 'false'] };
  return { header, note };
}

/** The template's columns: `entries` as the caller sees them (view.ts viewFor), the writable ones. */
export function templateColumns(entries: readonly ViewEntry[]): TemplateColumn[] {
  return [
    ...entries.filter((e) => e.writable && !(e.kind === 'field' && (e.spec.type === 'file' || e.spec.type === 'attachments'))).map(columnOf),
    { header: 'remote_key', note: 'Key of the record in an external system; an update or upsert by remote_key finds the record by it.' },
  ];
}

function workbookOf(excel: Excel, title: string, columns: readonly TemplateColumn[], withHelp: boolean): ExcelJS.Workbook {
  const book = new excel.Workbook();
  const sheet = book.addWorksheet(sheetName(title));
  sheet.addRow(columns.map((c) => c.header));
  if (!withHelp) return book;
  sheet.getRow(1).font = { bold: true };
  sheet.views = [{ state: 'frozen', ySplit: 1 }];
  const values = book.addWorksheet('Values', { state: 'veryHidden' });
  let listColumn = 0;
  columns.forEach((c, i) => {
    const cell = sheet.getCell(1, i + 1);
    cell.note = c.note;
    sheet.getColumn(i + 1).width = Math.max(12, c.header.length + 2);
    if (!c.values) return;
    listColumn++;
    c.values.forEach((v, row) => (values.getCell(row + 1, listColumn).value = v));
    const letter = values.getColumn(listColumn).letter;
    const target = sheet.getColumn(i + 1).letter;
    // exceljs keeps a range's validation once (its typings omit the collection)
    (sheet as unknown as { dataValidations: { add(range: string, v: ExcelJS.DataValidation): void } }).dataValidations.add(`${target}2:${target}${VALIDATED_ROWS + 1}`, {
      type: 'list',
      allowBlank: true,
      formulae: [`Values!$${letter}$1:$${letter}$${c.values.length}`],
      showErrorMessage: true,
      errorTitle: c.header,
      error: `One of: ${c.values.join(', ')}`.slice(0, 255),
    });
  });
  return book;
}

/** The template's bytes. */
export async function templateOf(title: string, entries: readonly ViewEntry[], format: SheetFormat): Promise<Buffer> {
  const columns = templateColumns(entries);
  const book = workbookOf(await loadExcel(), title, columns, format === 'xlsx');
  const bytes = format === 'xlsx' ? await book.xlsx.writeBuffer() : await book.csv.writeBuffer();
  return Buffer.from(bytes as ArrayBuffer);
}
