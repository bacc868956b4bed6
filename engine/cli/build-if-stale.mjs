// Runs before `npm start`, `npm run manage` and `npm test`: builds only when a source is newer than
// the last build. `tsc -b` alone knows that too, but takes about a second to find out; a walk over
// the sources' modification times takes a few milliseconds. Plain JavaScript: it runs before any build.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const stamp = path.join(root, 'dist', 'tsconfig.tsbuildinfo');
const SOURCES = ['engine', 'resources', 'migrations', 'test', 'bench', 'tsconfig.json', 'package.json'];

function newest(entry) {
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return /\.(ts|json)$/.test(entry) ? stat.mtimeMs : 0;
  return Math.max(0, ...fs.readdirSync(entry).map((name) => newest(path.join(entry, name))));
}

let built = 0;
try {
  built = fs.statSync(stamp).mtimeMs;
} catch {
  // never built
}
if (Math.max(...SOURCES.map((s) => newest(path.join(root, s)))) > built) {
  // a first build takes a minute on a small machine, an incremental one seconds: say what the wait is
  const began = Date.now();
  process.stderr.write(built ? 'Compiling the TypeScript that changed since the last build (tsc -b)…\n' : 'Compiling the TypeScript (tsc -b; the first build takes a while)…\n');
  const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  process.stderr.write(`Compiled in ${((Date.now() - began) / 1000).toFixed(1)} s.\n`);
  // tsc -b leaves the stamp alone when nothing needed emitting: touch it, so the next check is quick
  const now = new Date();
  fs.utimesSync(stamp, now, now);
}
