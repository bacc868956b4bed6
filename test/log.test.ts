/**
 * The log's buffer (engine/log.ts): lines wait at most about a period, also when the timer's flush
 * meets a write still under way, and nothing is written while no line comes.
 */
import { spawn } from 'node:child_process';
import { expect } from 'chai';

const LOG_MODULE = new URL('../engine/log.js', import.meta.url).href;

/** Runs `script` (an ES module, `createLogger` in scope) and the times after start at which each stdout line arrived. */
function linesOf(script: string): Promise<number[]> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', `import { createLogger } from '${LOG_MODULE}';\n${script}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const started = Date.now();
  const times: number[] = [];
  let rest = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split('\n');
    rest = parts.pop()!;
    for (let i = 0; i < parts.length; i++) times.push(Date.now() - started);
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => resolve(times));
  });
}

describe('log buffer', function () {
  this.timeout(20_000);

  it("writes what a slow write left behind on a later tick, not only with the next line", async () => {
    // every write takes 250 ms: the first, started by the burst's first 4 kB, is under way at the
    // timer's first ticks, and leaves the burst's last 1.4 kB (under the 4 kB that start a write by
    // themselves) behind; they must still go out long before the process ends
    const times = await linesOf(`
      import fs from 'node:fs';
      const write = fs.write;
      fs.write = (...args) => setTimeout(() => write(...args), 250);
      const log = createLogger('info');
      for (let i = 0; i < 20; i++) log.info({ i, pad: 'x'.repeat(200) }, 'line');
      setTimeout(() => process.exit(0), 2500);
    `);
    expect(times).to.have.length.at.least(20);
    expect(Math.max(...times.slice(0, 20)), 'the last of the burst').to.be.below(1500);
  });
});
