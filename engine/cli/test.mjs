// `npm test` runs the whole suite (.mocharc.json); `npm test -- <file or pattern> …` runs just those:
// mocha would add its arguments to the configured spec, so they replace it here. A source path
// (`test/audit.test.ts`) names its compiled file; a bare word matches test file names (`audit`).
// Arguments starting with `-` go to mocha as they are (values joined by `=`: `--grep=ETag`). Plain JavaScript: it runs before any build.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const mocha = path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
const args = process.argv.slice(2);
const chosen = args.filter((a) => !a.startsWith('-'));

function specOf(arg) {
  if (/\.ts$/.test(arg)) return path.join('dist', arg.replace(/\.ts$/, '.js'));
  if (/\.js$/.test(arg) || arg.includes('/')) return arg;
  return `dist/test/**/*${arg}*.test.js`;
}

let argv = args;
if (chosen.length) {
  const config = JSON.parse(fs.readFileSync(path.join(root, '.mocharc.json'), 'utf8'));
  const options = Object.entries(config)
    .filter(([key]) => key !== 'spec')
    .flatMap(([key, value]) => (Array.isArray(value) ? value : [value]).flatMap((v) => (v === true ? [`--${key}`] : [`--${key}`, String(v)])));
  argv = ['--no-config', ...options, ...args.filter((a) => a.startsWith('-')), ...chosen.map(specOf)];
}
const run = spawnSync(process.execPath, [mocha, ...argv], { stdio: 'inherit', cwd: root });
process.exit(run.status ?? 1);
