/**
 * Preloaded into a spawned service (`NODE_OPTIONS=--import <this file>`): when the process exits,
 * LOADED_MODULES_FILE holds the file of every module it loaded, one a line. CommonJS modules are
 * read from require's cache at exit; ES modules, which have no cache to read, are written by a
 * resolve hook (loaded-modules-hook.ts, on the loader's own thread) as they are resolved.
 */
import fs from 'node:fs';
import { createRequire, register } from 'node:module';

const require = createRequire(import.meta.url);
const file = process.env.LOADED_MODULES_FILE;
if (file) {
  fs.writeFileSync(file, '');
  register('./loaded-modules-hook.js', import.meta.url, { data: { file } });
  process.on('exit', () => fs.appendFileSync(file, Object.keys(require.cache).join('\n')));
}

/** The NODE_OPTIONS that preload this file (compiled beside its caller's tree). */
export const preloadOption = `--import=${import.meta.url}`;

/** The packages (`name` or `@scope/name`) among `files`, the lines LOADED_MODULES_FILE holds. */
export const packagesOf = (files: string[]): Set<string> => new Set(files.flatMap((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1] ?? []));
