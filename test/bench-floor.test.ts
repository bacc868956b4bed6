/**
 * `npm run bench -- --framework-floor` (bench/framework-floor.ts): the floor processes answer as
 * the service's framework would, without the database, and the mode prints the framework's cost.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { readOptions, UsageError } from '../bench/options.js';
import { FLOOR_SETTING, FLOOR_STACKS, type FloorStack } from '../bench/framework-floor.js';
import { createTestDatabase, describeWithServer, type TestDatabase } from './support/database.js';
import { dist, run } from './support/processes.js';

/** A floor process of `stack` on a free port, with what it printed so far. */
async function startFloor(stack: FloorStack): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [path.resolve(dist, 'bench/floor.js')], { env: { ...process.env, [FLOOR_SETTING]: stack, PORT: '0', HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the ${stack} floor exited with ${code}: ${output}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /"url":"([^"]+)"[^\n]*"msg":"listening"/.exec(output);
      if (listening) resolve(listening[1]!);
    });
  });
  return { url, child, output: () => output };
}

const stop = (child: ChildProcess) => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM')));

describe('bench: --framework-floor', function () {
  this.timeout(30_000);

  it('is a mode of its own', () => {
    expect(readOptions([], {})!.frameworkFloor).to.equal(false);
    expect(readOptions(['--framework-floor'], {})!.frameworkFloor).to.equal(true);
    expect(() => readOptions(['--framework-floor', '--metrics-cost'], {})).to.throw(UsageError, '--metrics-cost and --framework-floor each replace the table: give one of them.');
  });

  it("answers the detail's path with one record on every stack, the front with the service's headers and request line", async () => {
    const records = new Set<string>();
    for (const stack of FLOOR_STACKS) {
      const { url, child, output } = await startFloor(stack);
      try {
        const found = await fetch(`${url}/api/issue/issue/5`, { headers: { 'X-Request-Id': `floor-${stack}` } });
        expect(found.status, stack).to.equal(200);
        expect(found.headers.get('content-type'), stack).to.equal('application/json; charset=utf-8');
        const text = await found.text();
        expect(JSON.parse(text), stack).to.include({ id: 5 });
        records.add(text);
        expect((await fetch(`${url}/api/issue/issue/five`)).status, stack).to.equal(404);
        const front = stack === 'front';
        expect(found.headers.get('content-security-policy') !== null, stack).to.equal(front);
        expect(found.headers.get('x-request-id'), stack).to.equal(front ? `floor-${stack}` : null);
        await stop(child);
        expect(output().includes('"reqId":"floor-front","method":"GET","path":"/api/issue/issue/5","status":200'), stack).to.equal(front);
      } finally {
        child.kill('SIGKILL');
      }
    }
    expect(records.size, 'the same record from every stack').to.equal(1);
  });
});

describeWithServer('bench: a --framework-floor smoke run', 'the bench creates its database on a server', function () {
  this.timeout(600_000);
  let db: TestDatabase;
  before(async () => (db = await createTestDatabase()));
  after(async () => db?.drop());

  it('drives the floors, the ceiling and the service, and prints what the framework costs', async () => {
    const { code, stdout, stderr } = await run('bench/bench.js', ['--smoke', '--workers', '1', '--framework-floor'], db, { DATABASE_URL: process.env.DATABASE_URL! });
    expect(code, stderr).to.equal(0);
    for (const name of ['floor: node:http', 'floor: Koa, @koa/router', "floor: Koa, the service's front, @koa/router", 'ceiling', 'service']) {
      expect(stdout, name).to.match(new RegExp(`\\n  ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} +[\\d.]+ req/s  [\\d.]+ ms CPU/request  0 errors`));
    }
    expect(stdout).to.match(/The framework's own CPU per request: -?[\d.]+ ms \(Koa and @koa\/router -?[\d.]+ ms, the service's front -?[\d.]+ ms\)\./);
    expect(stdout).to.match(/The least CPU per detail on this framework: the ceiling's [\d.]+ ms \+ -?[\d.]+ ms = [\d.]+ ms, [\d.]+× the ceiling's; issue 30's bound \(1\.25×\) is (below|above) it/);
  });
});
