/**
 * The log (engine/log.ts): its buffer's lines wait at most about a period, also when the timer's
 * flush meets a write still under way, and lines gathered before the process exits are written;
 * credentials are censored in every line.
 */
import { spawn } from 'node:child_process';
import { expect } from 'chai';

const LOG_MODULE = new URL('../engine/log.js', import.meta.url).href;

/** Runs `script` (an ES module, `createLogger` in scope): each stdout line and the time after start at which it arrived. */
function logged(script: string): Promise<{ lines: string[]; times: number[] }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', `import { createLogger } from '${LOG_MODULE}';\n${script}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const started = Date.now();
  const lines: string[] = [];
  const times: number[] = [];
  let rest = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split('\n');
    rest = parts.pop()!;
    lines.push(...parts);
    for (let i = 0; i < parts.length; i++) times.push(Date.now() - started);
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => resolve({ lines, times }));
  });
}

const linesOf = async (script: string): Promise<number[]> => (await logged(script)).times;

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

  it('writes the lines still gathered when the process exits', async () => {
    // 30 short lines are under the 4 kB that hand a batch over: only the exit's flush writes them
    const { lines } = await logged(`
      const log = createLogger('info');
      for (let i = 0; i < 30; i++) log.info({ i }, 'line');
      process.exit(0);
    `);
    expect(lines.map((l) => (JSON.parse(l) as { i: number }).i)).to.deep.equal([...Array(30).keys()]);
  });

  it('censors a password at the top and one level down, and the credential headers of a request, without touching the caller\'s objects', async () => {
    const { lines } = await logged(`
      const log = createLogger('info');
      const body = { username: 'ann', password: 'secret-1' };
      const req = { method: 'GET', headers: { authorization: 'Token secret-2', cookie: 'bms.sid=secret-3', accept: 'application/json' } };
      const before = JSON.stringify({ body, req });
      log.info({ body, req, password: 'secret-4', deep: { inner: { password: 'kept: two levels down, as pino redacted' } } }, 'credentials');
      log.child({ password: 'secret-5' }).info('child');
      log.info({ status: 200, ms: 1.5, user: 3, ok: true }, 'plain');
      log.info({ untouched: JSON.stringify({ body, req }) === before }, 'the caller\\'s objects');
      process.exit(0);
    `);
    expect(lines.join('\n')).not.to.match(/secret-[1-5]/);
    const [first, child, plain, check] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(first).to.deep.include({
      body: { username: 'ann', password: '[redacted]' },
      req: { method: 'GET', headers: { authorization: '[redacted]', cookie: '[redacted]', accept: 'application/json' } },
      password: '[redacted]',
      deep: { inner: { password: 'kept: two levels down, as pino redacted' } },
    });
    expect(child).to.include({ password: '[redacted]', msg: 'child' });
    expect(plain).to.include({ status: 200, ms: 1.5, user: 3, ok: true, msg: 'plain' });
    expect(check).to.include({ untouched: true });
  });

  it('censors the password an error carries and keeps its type, message and stack', async () => {
    const { lines } = await logged(`
      const log = createLogger('info');
      const err = Object.assign(new TypeError('connection refused'), { password: 'secret-6', code: 'ECONNREFUSED' });
      log.error({ err }, 'failed');
      log.info({ kept: err.password === 'secret-6' }, 'the error as given');
      process.exit(0);
    `);
    expect(lines.join('\n')).not.to.include('secret-6');
    const [failed, check] = lines.map((l) => JSON.parse(l) as { err: Record<string, unknown> } & Record<string, unknown>);
    expect(failed!.err).to.include({ type: 'TypeError', message: 'connection refused', password: '[redacted]', code: 'ECONNREFUSED' });
    expect(failed!.err.stack).to.match(/^TypeError: connection refused\n\s+at /);
    expect(check).to.include({ kept: true });
  });
});
