/**
 * WEB_CONCURRENCY=2: `node dist/engine/main.js` as a process of its own on PostgreSQL. Which
 * process served a request is read from the request log, whose lines carry the pid, matched by the
 * request id the test sends; the workers are the primary's child processes in /proc.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { childPids, isRunning } from '../bench/proc.js';
import { createTestDatabase, describeWithServer, type TestDatabase } from './support/database.js';
import { dist, killWithChildren, run, startServiceProcess, type ServiceProcess } from './support/processes.js';
import { until, within } from './support/wait.js';


/** A GET on a connection of its own (so the primary hands each to the next worker); resolves with the status. */
function getOnNewConnection(url: string, token: string, requestId: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(`${url}/api/issue/tracker`, { agent: false, headers: { Authorization: `Token ${token}`, 'X-Request-Id': requestId } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      })
      .on('error', reject);
  });
}

const ascending = (a: number, b: number) => a - b;

interface Logged {
  pid: number;
  msg: string;
  reqId?: string;
  worker?: number;
}

/** The service's JSON log lines so far. */
const logOf = (service: ServiceProcess): Logged[] =>
  service
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{"level"') && line.endsWith('}'))
    .map((line) => JSON.parse(line) as Logged);

// the embedded database serves one process; startup-settings tests the refusal of WEB_CONCURRENCY without a server
describeWithServer('WEB_CONCURRENCY: worker processes (node:cluster)', 'workers share a database server', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => db?.drop());

  it('bootstraps once in the primary, serves from 2 workers, replaces one that dies, and exits 0 on SIGTERM', async () => {
    const service = await startServiceProcess(db, { WEB_CONCURRENCY: '2' });
    const primary = service.child.pid!;
    /** The pid of each worker of the primary once it has logged that it listens. */
    const listening = (count: number) =>
      until(`${count} listening workers`, () => {
        const pids = childPids(primary);
        const ready = pids.filter((pid) => logOf(service).some((l) => l.msg === 'listening' && l.pid === pid));
        return pids.length === count && ready.length === count ? pids.sort(ascending) : undefined;
      });
    /** Sends `count` requests, each on a new connection; answers the pids whose log lines name them. */
    const servedBy = async (count: number): Promise<number[]> => {
      const ids: string[] = Array.from({ length: count }, () => randomUUID());
      for (const id of ids) expect(await getOnNewConnection(service.url, service.token!, id)).to.equal(200);
      const lines = await until('the request log', () => {
        const found = logOf(service).filter((l) => l.msg === 'request' && ids.includes(l.reqId!));
        return found.length === count ? found : undefined;
      });
      return [...new Set(lines.map((l) => l.pid))].sort(ascending);
    };
    try {
      expect(service.output().match(/First start: created superuser "admin"/g), 'bootstrapped once, by the primary').to.have.length(1);
      const workers = await listening(2);
      expect(workers).to.not.include(primary);
      expect(await servedBy(6)).to.deep.equal(workers);

      const [victim, survivor] = workers as [number, number];
      process.kill(victim, 'SIGKILL');
      await until('the log line of its death', () => logOf(service).find((l) => l.msg === 'worker died; starting another' && l.worker === victim && l.pid === primary));
      const replaced = await listening(2);
      expect(replaced).to.include(survivor).and.not.include(victim);
      expect(await servedBy(6)).to.deep.equal(replaced);

      expect(await service.stop()).to.equal(0);
      expect(replaced.filter(isRunning)).to.deep.equal([]);
    } finally {
      killWithChildren(primary);
    }
  });

  it('exits 1 when its workers cannot start, instead of forking them again and again', async () => {
    const taken = await new Promise<net.Server>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => resolve(server));
    });
    try {
      const port = (taken.address() as net.AddressInfo).port;
      const res = await run('engine/main.js', [], db, { WEB_CONCURRENCY: '2', PORT: String(port) });
      expect(res.code).to.equal(1);
      expect(res.stderr).to.include(`Cannot listen on 127.0.0.1:${port} (HOST, PORT): the address is already in use`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe('WEB_CONCURRENCY: the primary stops', function () {
  this.timeout(30_000);

  it("exits 0 once its workers have died of SIGTERM, though their IPC channels close only later", async () => {
    const primary = spawn(process.execPath, [path.join(dist, 'test/support/cluster-primary.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    primary.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const holders = () => [...out.matchAll(/holds the channel in (\d+)/g)].map((m) => Number(m[1]));
    try {
      await until('two workers holding their channels', () => (holders().length === 2 ? true : undefined));
      primary.kill('SIGTERM');
      expect(await within(10_000, async () => primary.exitCode !== null), 'exited within 10 s').to.equal(true);
      expect(primary.exitCode).to.equal(0);
    } finally {
      for (const pid of [...holders(), primary.pid!]) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});
