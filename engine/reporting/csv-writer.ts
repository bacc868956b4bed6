/**
 * CSV as RFC 4180 has it: fields separated by commas, records ended by CRLF, a field holding a
 * comma, a quote, a CR or an LF quoted with its quotes doubled (csv-stringify's default rule, whose
 * text per record this writer no longer builds: see byte-chunks.ts). Decimals as their exact text,
 * null as an empty field.
 */
import type { Readable } from 'node:stream';
import { byteStream, type ByteChunks } from './byte-chunks.js';
import type { Cell } from './export-columns.js';

const QUOTED = /[",\r\n]/;
const BOM = '\ufeff';

function writeField(out: ByteChunks, cell: Cell): void {
  if (cell === null) return;
  if (typeof cell === 'object') return out.ascii(cell.decimal);
  if (typeof cell !== 'string') return out.ascii(String(cell));
  if (!QUOTED.test(cell)) return out.text(cell);
  out.ascii('"');
  out.text(cell.replace(/"/g, '""'));
  out.ascii('"');
}

function writeRecord(out: ByteChunks, row: readonly Cell[]): void {
  for (let i = 0; i < row.length; i++) {
    if (i > 0) out.ascii(',');
    writeField(out, row[i]!);
  }
  out.ascii('\r\n');
}

/** `headers` as the first record, then `rows` as they come; `bom`: a byte order mark first, so Excel reads UTF-8. */
export function csvStream(headers: readonly string[], rows: AsyncIterable<readonly Cell[][]>, bom: boolean): Readable {
  return byteStream(rows, {
    head(out) {
      if (bom) out.text(BOM);
      writeRecord(out, headers);
    },
    row: writeRecord,
    tail: () => undefined,
  });
}
