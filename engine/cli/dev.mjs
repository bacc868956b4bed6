// `npm run dev`: the service, restarted on every change of a source it runs, in about the time it
// takes to start (a second or two). A changed file is transpiled alone (TypeScript's transpileModule:
// milliseconds, no type check) into dist/, and the service restarts; `tsc -b --watch` runs beside it,
// incremental, reporting type errors as it finds them and keeping the build current for `npm start`.
// Plain JavaScript: it runs before any build.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { clearTimeout, setTimeout } from 'node:timers';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WATCHED = ['engine', 'resources', 'migrations'];
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const say = (text) => process.stderr.write(`[dev] ${text}\n`);

const built = spawnSync(process.execPath, [path.join(root, 'engine/cli/build-if-stale.mjs')], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);

const config = ts.parseJsonConfigFileContent(ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile).config, ts.sys, root);
// one file at a time: ES modules as the build emits them (package.json says "type": "module")
const options = { ...config.options, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, sourceMap: false, inlineSourceMap: true };

/** Writes `dist/<file>.js` for the source `file` (relative to the root); removes it when the source is gone. */
function transpile(file) {
  const out = path.join(root, 'dist', file.replace(/\.ts$/, '.js'));
  if (!fs.existsSync(path.join(root, file))) return fs.rmSync(out, { force: true });
  const { outputText } = ts.transpileModule(fs.readFileSync(path.join(root, file), 'utf8'), { compilerOptions: options, fileName: file });
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, outputText);
}

let service;
let restarting = false;
let again = false;
function start() {
  service = spawn(process.execPath, [path.join(root, 'dist/engine/main.js')], { stdio: 'inherit', cwd: root });
}
/** Stops the running service and starts it again; changes during a restart make one more. */
async function restart(why) {
  if (restarting) return void (again = true);
  restarting = true;
  const began = Date.now();
  say(`${why}: restarting`);
  if (service && service.exitCode === null) {
    const exited = new Promise((resolve) => service.once('exit', resolve));
    service.kill('SIGTERM');
    await exited;
  }
  say(`stopped in ${((Date.now() - began) / 1000).toFixed(1)} s; starting (type errors, if any, come from tsc below)`);
  start();
  restarting = false;
  if (again) {
    again = false;
    void restart('more changes');
  }
}

let pending = new Set();
let timer;
for (const dir of WATCHED) {
  fs.watch(path.join(root, dir), { recursive: true }, (_event, name) => {
    if (!name || !name.endsWith('.ts')) return;
    pending.add(path.join(dir, name));
    // an editor's save is often several events: one restart for them
    clearTimeout(timer);
    timer = setTimeout(() => {
      const files = [...pending];
      pending = new Set();
      try {
        files.forEach(transpile);
      } catch (err) {
        return say(`cannot transpile ${files.join(', ')}: ${err.message}`);
      }
      void restart(files.join(', '));
    }, 50);
  });
}

const checker = spawn(process.execPath, [tsc, '-b', path.join(root, 'tsconfig.json'), '--watch', '--preserveWatchOutput'], { stdio: ['ignore', 'inherit', 'inherit'] });
// the check recompiles on the same change: it must not slow the restart down
os.setPriority(checker.pid, 19);
start();
say(`watching ${WATCHED.join(', ')}: a change restarts the service`);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    checker.kill('SIGTERM');
    service?.kill('SIGTERM');
    process.exit(0);
  });
}
