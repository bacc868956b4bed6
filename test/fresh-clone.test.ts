/**
 * What a fresh clone needs: nothing beside the repository (no file reads or points at a folder
 * next to it), and a browser only for the browser tests, found or reported missing with a reason.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { findChromium } from './support/chromium.js';
import { dist } from './support/processes.js';

const root = path.resolve(dist, '..');
const SOURCES = ['README.md', 'package.json', '.ci', 'docs', 'engine', 'resources', 'migrations', 'test', 'bench'];
const BESIDE = new RegExp(['\\.\\./', 'shared/'].join(''));

function files(entry: string): string[] {
  const full = path.join(root, entry);
  if (!fs.existsSync(full)) return [];
  if (!fs.statSync(full).isDirectory()) return [entry];
  return fs.readdirSync(full).flatMap((name) => files(path.join(entry, name)));
}

describe('a fresh clone', () => {
  it('reads and points at nothing beside the repository', () => {
    const all = SOURCES.flatMap(files);
    expect(all).to.include.members(['README.md', 'test/resources-spec-paths.test.ts', 'docs/permissions.md']);
    expect(all.filter((file) => BESIDE.test(fs.readFileSync(path.join(root, file), 'utf8')))).to.deep.equal([]);
  });

  it('finds the browser at CHROMIUM_PATH, and names the reason when there is none', () => {
    expect(findChromium({ CHROMIUM_PATH: process.execPath })).to.deep.equal({ path: process.execPath });
    expect(findChromium({ CHROMIUM_PATH: '/nowhere/chromium' })).to.deep.equal({ missing: 'CHROMIUM_PATH=/nowhere/chromium is not an executable file' });
    expect(findChromium({ CHROMIUM_PATH: root })).to.deep.equal({ missing: `CHROMIUM_PATH=${root} is not an executable file` });
  });
});
