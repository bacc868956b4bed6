/**
 * Preloaded into a spawned service (`NODE_OPTIONS=--import <this file>`): when the process exits it
 * writes the files of every CommonJS module it loaded, one a line, to LOADED_MODULES_FILE. npm
 * packages imported from ESM load through the CommonJS loader too when they are CommonJS, as every
 * @opentelemetry package resolves here, so they are listed whichever way they were reached.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const file = process.env.LOADED_MODULES_FILE;
if (file) process.on('exit', () => fs.writeFileSync(file, Object.keys(require.cache).join('\n')));

/** The NODE_OPTIONS that preload this file (compiled beside its caller's tree). */
export const preloadOption = `--import=${import.meta.url}`;
