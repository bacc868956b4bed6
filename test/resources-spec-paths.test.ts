/**
 * The registry against spec 4.2, read from the specification's own table (copied verbatim into
 * docs/spec-resource-paths.md, since the specification is not part of the repository): every
 * resource path of the table is declared and lists its records, and the DMS batch endpoints the
 * spec names are declared. Modules beyond the specification are allowed: a new declaration needs no
 * edit here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { loadRegistry } from '../engine/registry/registry.js';
import { suite } from './support/hooks.js';

/** The project root: the compiled test runs two levels below it (`<out>/test/`). */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const section42 = fs.readFileSync(path.join(root, 'docs/spec-resource-paths.md'), 'utf8');

/** Rows like `| dms | /api/dms/document, folder, documenttype |`: a full path, then siblings by name or full path. */
function tablePaths(): string[] {
  const rows = section42.split('\n').filter((line) => line.startsWith('|') && !/^\|\s*(Module|-)/.test(line));
  expect(rows, 'rows of the 4.2 table').to.have.length.above(20);
  return rows.flatMap((line) => {
    const cells = /^\|\s*[\w-]+\s*\|\s*(\/api\/[^|]+?)\s*\|$/.exec(line);
    if (!cells) throw new Error(`Unexpected row in spec 4.2: ${line}`);
    const [first, ...others] = cells[1]!.split(',').map((s) => s.trim());
    const base = first!.slice(0, first!.lastIndexOf('/'));
    return [first!, ...others.map((o) => (o.startsWith('/api/') ? o : `${base}/${o}`))];
  });
}

const registry = await loadRegistry();
const specified = tablePaths();
const declared = registry.resources.map((r) => r.path);

describe('spec 4.2 coverage (paths read from the specification)', () => {
  it('reads every path of the table, the "other" row included', () => {
    expect(new Set(specified).size).to.equal(specified.length);
    expect(specified).to.include.members(['/api/organisation/mitarbeitende', '/api/tutorial/lesson-progress', '/api/bot/context_check', '/api/measuringtool/measuringtool', '/api/user', '/api/customgroup']);
  });

  it('declares every path of the table', () => {
    expect(specified.filter((p) => !declared.includes(p))).to.deep.equal([]);
  });

  it('serves a list on every path of the table (spec 4.1)', async () => {
    for (const p of specified) {
      const res = await suite().admin.get(p);
      expect(res.status, `${p}: ${res.text}`).to.equal(200);
      expect(res.body, p).to.be.an('array');
    }
  });

  it('declares every batch endpoint the spec names', () => {
    const named = [...section42.matchAll(/\/api\/dms\/batch_\w+/g)].map((m) => m[0]);
    expect(named).to.have.length(3);
    expect(registry.batches.map((b) => b.path)).to.include.members(named);
  });
});
