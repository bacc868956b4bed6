/**
 * Headless Chromium for browser tests, driven by playwright-core (which gives each launch a fresh
 * temporary profile), with background networking off on this closed network. The browser is
 * `CHROMIUM_PATH`, else the first one installed in the usual places; without one, the browser
 * tests are reported pending, with the reason, and the rest of the suite runs.
 */
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const USUAL_PLACES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

const executable = (file: string) => {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
};

/** The browser to run, or why there is none. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): { path: string } | { missing: string } {
  const chosen = env.CHROMIUM_PATH;
  if (chosen) return executable(chosen) ? { path: chosen } : { missing: `CHROMIUM_PATH=${chosen} is not an executable file` };
  const found = USUAL_PLACES.find(executable);
  return found ? { path: found } : { missing: `no Chromium found (install Debian's chromium, or set CHROMIUM_PATH; looked in ${USUAL_PLACES.join(', ')})` };
}

/**
 * For a `before` hook of browser tests: the browser's path, or, when there is none, the hook's
 * suite marked pending with the reason logged.
 */
export function chromiumOrPending(hook: Mocha.Context): string {
  const found = findChromium();
  if ('path' in found) return found.path;
  console.log(`      Browser tests pending: ${found.missing}.`);
  // mocha's own way to make every test of the suite pending from a before hook
  return hook.skip.call(hook);
}

export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}
