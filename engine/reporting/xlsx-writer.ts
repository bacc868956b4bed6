/**
 * A workbook of one sheet as a stream: the sheet's XML written a batch of rows at a time into a zip
 * entry (zip-stream, archiver's zip writer), the rows pulled only as the zip's reader takes its
 * output, so the writer holds one batch and the streams' buffers however long the sheet is.
 *
 * Not exceljs's streaming writer: it builds Row and Cell objects, a model and XML text per cell
 * (the issue export allocated some 25 kB per row with it, under 5 kB with this one, see
 * byte-chunks.ts for why that is memory), and its sheet stream handed the zip its chunks without
 * waiting for them to be taken.
 */
import type { Readable } from 'node:stream';
import ZipStream from 'zip-stream';
import { byteStream, type ByteChunks, type ByteWriter } from './byte-chunks.js';
import type { Cell } from './export-columns.js';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELATIONSHIPS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const DOCUMENT_RELATIONSHIP = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml';

/** Characters XML 1.0 cannot hold at all (they are dropped, as exceljs does) and lone surrogates. */
const NOT_XML = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\ud800-\\udfff\\ufffe\\uffff';
const DROPPED = new RegExp(`[${NOT_XML}]`, 'gu');
const ESCAPED = /[&<>"\r]/g;
/** Whether a text needs either: most do not, and are written as they are, without a copy. */
const CHANGED = new RegExp(`[&<>"\\r${NOT_XML}]`, 'u');
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\r': '&#13;' };

/** Text as XML character data or an attribute value; a CR as a reference, which a parser keeps (a bare one it reads as LF). */
const escape = (text: string): string => (CHANGED.test(text) ? text.replace(DROPPED, '').replace(ESCAPED, (c) => ESCAPES[c]!) : text);

/** A sheet's name by Excel's rule (at most 31 characters, none of `[]:*?/\`): the export's and the import template's. */
export const sheetName = (title: string): string => title.replace(/[[\]:*?/\\]/g, ' ').slice(0, 31) || 'Export';

/** A column's letters: 0 is A, 25 Z, 26 AA. */
function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function writeText(out: ByteChunks, text: string): void {
  out.ascii('" t="inlineStr"><is><t xml:space="preserve">');
  out.text(escape(text));
  out.ascii('</t></is></c>');
}

/** A number as a number; NaN or an infinity (a decimal can be either) as its text, which a workbook cannot hold as a number. */
function writeNumber(out: ByteChunks, value: number): void {
  if (!Number.isFinite(value)) return writeText(out, String(value));
  out.ascii('"><v>');
  out.ascii(String(value));
  out.ascii('</v></c>');
}

/** The headers, then the rows, numbered from 1, their cells given their references; an empty cell (null or empty text) is left out. */
function sheetWriter(headers: readonly string[]): ByteWriter<readonly Cell[]> {
  const columns = headers.map((_, i) => columnName(i));
  let number = 0;
  const writeRow = (out: ByteChunks, row: readonly Cell[]): void => {
    const r = String(++number);
    out.ascii('<row r="');
    out.ascii(r);
    out.ascii('">');
    // indexed: entries() would make a pair per cell
    for (let i = 0; i < row.length; i++) {
      const value = row[i]!;
      if (value === null || value === '') continue;
      out.ascii('<c r="');
      out.ascii(columns[i] ?? columnName(i));
      out.ascii(r);
      if (typeof value === 'number') writeNumber(out, value);
      else if (typeof value === 'boolean') out.ascii(value ? '" t="b"><v>1</v></c>' : '" t="b"><v>0</v></c>');
      else if (typeof value === 'object') writeNumber(out, Number(value.decimal));
      else writeText(out, value);
    }
    out.ascii('</row>');
  };
  return {
    head(out) {
      out.ascii(`${XML}<worksheet xmlns="${MAIN}"><sheetData>`);
      writeRow(out, headers);
    },
    row: writeRow,
    tail: (out) => out.ascii('</sheetData></worksheet>'),
  };
}

/** The parts around the sheet: content types, relationships, the workbook naming its sheet, and the styles Excel expects. */
function packageParts(sheet: string): [name: string, xml: string][] {
  const relationship = (id: number, type: string, target: string) => `<Relationship Id="rId${id}" Type="${DOCUMENT_RELATIONSHIP}/${type}" Target="${target}"/>`;
  return [
    [
      '[Content_Types].xml',
      `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
        `<Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="${TYPE}.sheet.main+xml"/>` +
        `<Override PartName="/xl/worksheets/sheet1.xml" ContentType="${TYPE}.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="${TYPE}.styles+xml"/></Types>`,
    ],
    ['_rels/.rels', `${XML}<Relationships xmlns="${RELATIONSHIPS}">${relationship(1, 'officeDocument', 'xl/workbook.xml')}</Relationships>`],
    [
      'xl/workbook.xml',
      `${XML}<workbook xmlns="${MAIN}" xmlns:r="${DOCUMENT_RELATIONSHIP}"><sheets><sheet name="${escape(sheet)}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ],
    ['xl/_rels/workbook.xml.rels', `${XML}<Relationships xmlns="${RELATIONSHIPS}">${relationship(1, 'worksheet', 'worksheets/sheet1.xml')}${relationship(2, 'styles', 'styles.xml')}</Relationships>`],
    [
      'xl/styles.xml',
      `${XML}<styleSheet xmlns="${MAIN}"><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>` +
        '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
        '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
        '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>' +
        '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>',
    ],
  ];
}

/**
 * The workbook, its one sheet called `name`: `headers` as its first row, then `rows` as they come (decimals as numbers). A failing `rows` destroys the
 * stream with its error; a stream destroyed before its end (its client gone) ends `rows` too.
 */
export function xlsxStream(name: string, headers: readonly string[], rows: AsyncIterable<readonly Cell[][]>): Readable {
  const zip = new ZipStream();
  const sheet = byteStream(rows, sheetWriter(headers));
  sheet.once('error', (err) => zip.destroy(err));
  zip.once('close', () => sheet.destroy());
  const files: [string, string | Readable][] = [...packageParts(name), ['xl/worksheets/sheet1.xml', sheet]];
  // zip-stream takes one entry at a time: each is added once the one before is written
  const next = (err: Error | null): void => {
    if (err) return void zip.destroy(err);
    const file = files.shift();
    if (file) zip.entry(file[1], { name: file[0] }, next);
    else zip.finalize();
  };
  next(null);
  return zip;
}
