/**
 * List exports (issue 27): CSV and XLSX of any list, read back with real parsers (csv-parse,
 * exceljs) to the values the JSON list serves for the same request, headed by the field labels,
 * foreign keys as id and label, links as `;`-joined ids; a field behind a read permission is no
 * column for whoever lacks it.
 */
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { inWords } from '../engine/describe/view.js';
import { loadRegistry } from '../engine/registry/registry.js';
import type { Cell } from '../engine/reporting/export-columns.js';
import { recordSlices } from '../engine/reporting/record-slices.js';
import { xlsxStream } from '../engine/reporting/xlsx-writer.js';
import { created, makeUser, unique, type TestUser } from './support/fixtures.js';
import { suite } from './support/hooks.js';

const registry = await loadRegistry();
const CONTRACTS = registry.get('contracts/contract');
const EMPLOYEES = registry.get('organisation/mitarbeitende');
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

type Row = Record<string, any>;

/** The answer's bytes, status and content type. */
async function download(user: TestUser | undefined, path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; bytes: Buffer; disposition: string | null }> {
  const token = user?.token ?? suite().admin.token!;
  const res = await fetch(`${suite().service.url}${path}`, { headers: { Authorization: `Token ${token}`, ...headers } });
  return { status: res.status, type: res.headers.get('content-type') ?? '', bytes: Buffer.from(await res.arrayBuffer()), disposition: res.headers.get('content-disposition') };
}

/** Each row of a CSV as header → text. */
const csvRows = (bytes: Buffer): Row[] => parse(bytes, { columns: true, bom: true }) as Row[];

/** Each row of the first sheet as header → value, empty cells as null. */
async function xlsxRows(bytes: Buffer): Promise<Row[]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  const sheet = workbook.worksheets[0]!;
  const headers = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
  const rows: Row[] = [];
  sheet.eachRow((row, n) => {
    if (n === 1) return;
    rows.push(Object.fromEntries(headers.map((h, i) => [h, row.getCell(i + 1).value ?? null])));
  });
  return rows;
}

/** What the export heads a record key with: its label in the resource view. */
function headerOf(resourceKey: string, key: string): string {
  const entry = suite().service.app.services.get(resourceKey)!.view.entries.find((e) => e.name === key);
  return entry?.label ?? (key === 'id' ? 'Id' : inWords(key));
}

/** A served value as a CSV cell's text. */
const asText = (value: unknown): string => (value === null ? '' : Array.isArray(value) ? value.join(';') : typeof value === 'object' ? JSON.stringify(value) : String(value));

describe('list exports', function () {
  this.timeout(120_000);
  const tag = unique('export');
  const partnerName = `${tag} partner, "quoted"\nand on two lines`;
  let list: Row[];

  before(async () => {
    const { admin } = suite();
    const folder = (await created(admin, registry.get('contracts/folder').path, { title: `${tag} folder`, visibility: 'normal' })).id;
    const partner = (await created(admin, registry.get('contracts/partner').path, { name: partnerName })).id;
    const units = [];
    for (const n of [1, 2]) units.push((await created(admin, registry.get('organisation/orgunit').path, { title: `${tag} unit ${n}` })).id);
    const values = [
      { amount: '1234567.89', duration: 30, partner_id: partner, assigned_orgunit_ids: units, description: 'semi; colon, comma "quote"' },
      { amount: null, duration: null, partner_id: null, assigned_orgunit_ids: [], description: 'Grüße — ünïcödé ✓' },
      { amount: '0.10', duration: 0, partner_id: partner, assigned_orgunit_ids: [units[1]], is_template: true, from_date: '2026-02-28' },
    ];
    for (const [i, v] of values.entries()) await created(admin, CONTRACTS.path, { title: `${tag} ${i}`, folder_id: folder, ...v });
    const res = await admin.get(`${CONTRACTS.path}?search=${tag}&ordering=-amount`);
    expect(res.status).to.equal(200);
    list = res.body as Row[];
    expect(list).to.have.length(3);
  });

  it('answers CSV that parses back to the JSON list, foreign keys as id and label', async () => {
    const res = await download(undefined, `${CONTRACTS.path}?search=${tag}&ordering=-amount&format=csv`);
    expect(res.status, res.bytes.toString()).to.equal(200);
    expect(res.type).to.match(/^text\/csv; charset=utf-8/);
    expect(res.disposition).to.match(/^attachment; filename="?contracts-contract\.csv"?$/);
    expect(res.bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])), 'no BOM unless asked for').to.equal(false);
    expect(res.bytes.toString()).to.include('\r\n');
    const rows = csvRows(res.bytes);
    expect(rows).to.have.length(list.length);
    for (const [i, record] of list.entries()) {
      for (const [key, value] of Object.entries(record)) expect(rows[i]![headerOf(CONTRACTS.key, key)], `${key} of record ${i}`).to.equal(asText(value));
      expect(rows[i]!['Partner (label)']).to.equal(record.partner === null ? '' : partnerName);
    }
    // descending puts the contract without an amount first
    expect(rows[1]!['Assigned orgunits']).to.match(/^\d+;\d+$/);
  });

  it('answers XLSX that reads back to the JSON list, numbers as numbers', async () => {
    const res = await download(undefined, `${CONTRACTS.path}?search=${tag}&ordering=-amount`, { Accept: XLSX });
    expect(res.status, res.bytes.toString()).to.equal(200);
    expect(res.type).to.equal(XLSX);
    const rows = await xlsxRows(res.bytes);
    expect(rows).to.have.length(list.length);
    for (const [i, record] of list.entries()) {
      for (const [key, value] of Object.entries(record)) {
        const cell = rows[i]![headerOf(CONTRACTS.key, key)];
        const want = key === 'amount' && value !== null ? Number(value) : Array.isArray(value) ? value.join(';') || null : value;
        expect(cell, `${key} of record ${i}`).to.deep.equal(want);
      }
      expect(rows[i]!['Partner (label)']).to.equal(record.partner === null ? null : partnerName);
    }
  });

  it('keeps the list’s fields, filters and ordering, and adds a BOM when asked', async () => {
    const res = await download(undefined, `${CONTRACTS.path}?search=${tag}&is_template=true&fields=id,title,partner&format=csv&bom=true`);
    expect(res.bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).to.equal(true);
    const rows = csvRows(res.bytes);
    expect(rows).to.deep.equal([{ Id: String(list[2]!.id), Title: `${tag} 2`, Partner: String(list[2]!.partner), 'Partner (label)': partnerName }]);
    const ascending = csvRows((await download(undefined, `${CONTRACTS.path}?search=${tag}&ordering=title&fields=title&format=csv`)).bytes);
    expect(ascending.map((r) => r.Title)).to.deep.equal([0, 1, 2].map((i) => `${tag} ${i}`));
  });

  it('answers 400 for an unknown format, an unknown field or a bad bom', async () => {
    const { admin } = suite();
    expect((await admin.get(`${CONTRACTS.path}?format=pdf`)).body).to.deep.equal({ format: ['Unknown format "pdf": use json, csv, xlsx.'] });
    expect((await admin.get(`${CONTRACTS.path}?format=csv&fields=nothing`)).body).to.deep.equal({ fields: ['Unknown field "nothing".'] });
    expect((await admin.get(`${CONTRACTS.path}?format=csv&bom=yes`)).status).to.equal(400);
    // a browser's Accept (any type last) still gets the JSON list
    const browser = await download(undefined, `${CONTRACTS.path}?search=${tag}`, { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(browser.type).to.match(/^application\/json/);
  });

  it('leaves out a field behind a read permission for whoever lacks it', async () => {
    const { admin } = suite();
    const employee = await created(admin, EMPLOYEES.path, { vorname: tag, nachname: 'Export', birth_date: '1980-05-17', civil_status: 'married' });
    const view = [EMPLOYEES.permissions.view];
    const hr = await makeUser({ permissions: [...view, 'organisation.view_private_data'] });
    const staff = await makeUser({ permissions: view });
    const guarded = suite().service.app.services.get(EMPLOYEES.key)!.view.entries.filter((e) => e.permission?.read).map((e) => e.label);
    expect(guarded).to.include.members(['Birth date', 'Civil status']);
    for (const format of ['csv', 'xlsx']) {
      const path = `${EMPLOYEES.path}?search=${tag}&format=${format}`;
      const read = async (user: TestUser) => {
        const res = await download(user, path);
        expect(res.status).to.equal(200);
        return format === 'csv' ? csvRows(res.bytes) : xlsxRows(res.bytes);
      };
      const [full] = await read(hr);
      const [masked] = await read(staff);
      expect(full!['Birth date']).to.equal(format === 'csv' ? '1980-05-17' : '1980-05-17');
      for (const label of guarded) expect(masked, `${format}: ${label}`).to.not.have.property(label);
      expect(masked!.Id).to.equal(format === 'csv' ? String(employee.id) : employee.id);
    }
  });
});

describe('the XLSX writer', () => {
  /** Rows without end, a batch of ten at a time, counting those taken; `ended` once the writer lets them go. */
  function endless() {
    const state = { taken: 0, ended: false };
    async function* rows(): AsyncGenerator<Cell[][]> {
      try {
        for (;;) {
          yield Array.from({ length: 10 }, () => [++state.taken, `row ${state.taken}`.padEnd(200, '.'), true]);
          await new Promise(setImmediate);
        }
      } finally {
        state.ended = true;
      }
    }
    return { state, stream: xlsxStream('Endless', ['n', 'text', 'flag'], rows()) };
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

  it('takes rows only as its reader takes the workbook, and lets them go when destroyed', async () => {
    const { state, stream } = endless();
    await settle();
    const unread = state.taken;
    await settle();
    // it stopped where the streams' buffers were full (some 16 kB of deflated output beyond each one's input)
    expect(state.taken, 'rows taken while nothing reads').to.equal(unread).and.to.be.below(20_000);
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
    await settle();
    expect(state.taken, 'rows taken once read').to.be.above(unread + 1000);
    expect(bytes).to.be.above(0);
    stream.destroy();
    await settle();
    expect(state.ended, 'the rows ended with the stream').to.equal(true);
  });

  it('writes texts XML cannot hold as they read back, dropping what it cannot hold at all', async () => {
    async function* rows(): AsyncGenerator<Cell[][]> {
      yield [['a & b < c > "d" \'e\'', 'CR\r\nLF\ntab\t', 'bell\u0007 lone \ud800 pair 😀', 1.5, -0, false, null, '']];
    }
    const chunks: Buffer[] = [];
    for await (const chunk of xlsxStream('A & "B" <C>', ['1', '2', '3', '4', '5', '6', '7', '8'], rows())) chunks.push(chunk as Buffer);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.concat(chunks) as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.name).to.equal('A & "B" <C>');
    expect((sheet.getRow(1).values as unknown[]).slice(1)).to.deep.equal(['1', '2', '3', '4', '5', '6', '7', '8']);
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((i) => sheet.getRow(2).getCell(i).value)).to.deep.equal([
      'a & b < c > "d" \'e\'',
      'CR\r\nLF\ntab\t',
      'bell lone  pair 😀',
      1.5,
      0,
      false,
      null,
      null,
    ]);
  });
});

describe('a list piece cut into slices', () => {
  it('cuts a long piece between records, whatever braces, quotes and escapes their texts hold', () => {
    const records = Array.from({ length: 3000 }, (_, id) => ({ id, text: `x}],{"\\\\"${'}'.repeat(id % 5)}`, nested: { list: [1, { end: '}]' }] }, empty: [] }));
    const piece = records.map((r) => JSON.stringify(r)).join(',');
    const slices = [...recordSlices(piece)];
    expect(slices.length, 'more than one slice').to.be.above(1);
    expect(slices.flatMap((s) => JSON.parse(s) as unknown[])).to.deep.equal(records);
    expect([...recordSlices('')]).to.deep.equal(['[]']);
  });
});
