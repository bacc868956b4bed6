/**
 * PostgreSQL servers of a test's own (PostgreSQL 15's initdb, pg_ctl and pg_basebackup), for what
 * the shared server cannot show: a streaming replica, a server stopped or frozen (`pid` for
 * signals). Each listens on a free loopback port and keeps its data, log and socket in a temporary
 * directory of its own; the programs run as the `postgres` OS user (through runuser when the tests
 * run as root), since PostgreSQL refuses to run as root. `remove` stops it and deletes everything.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describeWhereAvailable } from './conditional-suite.js';

export const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';
const OS_USER = 'postgres';
/** No step of a small test server takes this long on a loaded machine; one that does has hung. */
const STEP_TIMEOUT_MS = 60_000;
/** Small and unsafe on a crash, which a throwaway server does not care about. */
const SERVER_SETTINGS = ['listen_addresses=127.0.0.1', 'fsync=off', 'full_page_writes=off', 'shared_buffers=16MB'];

const run = promisify(execFile);
const isRoot = () => process.getuid?.() === 0;

/** Why this machine cannot run servers of its own; undefined when it can. */
export function ownPostgresUnavailable(): string | undefined {
  if (!fs.existsSync(path.join(POSTGRES_BIN, 'initdb'))) return `no PostgreSQL 15 programs in ${POSTGRES_BIN}`;
  if (os.userInfo().username === OS_USER) return undefined;
  if (!isRoot()) return `the tests run neither as root nor as the "${OS_USER}" user, whom PostgreSQL must run as`;
  try {
    execFileSync('id', ['-u', OS_USER], { stdio: 'ignore' });
  } catch {
    return `no "${OS_USER}" OS user to run PostgreSQL as`;
  }
  return undefined;
}

/**
 * A suite that needs servers of its own: pending, with the reason in its title, where the machine
 * cannot run them; under CI=true a failure instead, so CI never passes it by leaving it out.
 */
export function describeWithOwnPostgres(title: string, body: (this: Mocha.Suite) => void): void {
  describeWhereAvailable(title, 'servers of its own', ownPostgresUnavailable(), body);
}

/** Runs a PostgreSQL program as the `postgres` user; a failure carries what it printed. */
async function asPostgres(program: string, args: string[]): Promise<void> {
  const bin = path.join(POSTGRES_BIN, program);
  const [file, argv] = isRoot() ? ['runuser', ['-u', OS_USER, '--', bin, ...args]] : [bin, args];
  try {
    await run(file, argv, { timeout: STEP_TIMEOUT_MS });
  } catch (err) {
    const { stderr, stdout } = err as { stderr?: string; stdout?: string };
    throw new Error(`${program} ${args.join(' ')} failed: ${(err as Error).message}\n${stdout ?? ''}${stderr ?? ''}`, { cause: err });
  }
}

/** A loopback port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A temporary directory the `postgres` user owns. */
function ownedDirectory(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-pg-'));
  if (isRoot()) {
    const id = (flag: string) => Number(execFileSync('id', [flag, OS_USER]).toString().trim());
    fs.chownSync(dir, id('-u'), id('-g'));
  }
  return dir;
}

export class OwnPostgres {
  private running = false;

  private constructor(
    /** The temporary directory: `data/`, `server.log` and the socket. */
    readonly root: string,
    readonly port: number,
  ) {}

  get dataDir(): string {
    return path.join(this.root, 'data');
  }

  /** A new, empty server (not started); the superuser `postgres` connects without a password. */
  static async init(): Promise<OwnPostgres> {
    const server = new OwnPostgres(ownedDirectory(), await freePort());
    try {
      await asPostgres('initdb', ['-D', server.dataDir, '-U', OS_USER, '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync']);
    } catch (err) {
      await server.remove();
      throw err;
    }
    return server;
  }

  /** A streaming replica of `primary` (running), not started: a base backup with its recovery settings and a replication slot, so the primary keeps the WAL it has yet to receive. */
  static async replicaOf(primary: OwnPostgres): Promise<OwnPostgres> {
    const replica = new OwnPostgres(ownedDirectory(), await freePort());
    const slot = `replica_${replica.port}`;
    try {
      await asPostgres('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', OS_USER, '-D', replica.dataDir, '-R', '-X', 'stream', '-C', '-S', slot, '--no-sync']);
    } catch (err) {
      await replica.remove();
      throw err;
    }
    return replica;
  }

  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  url(database = 'postgres'): string {
    return `postgres://${OS_USER}@127.0.0.1:${this.port}/${database}`;
  }

  /** Starts it and waits until it accepts connections (a replica: read-only ones). */
  async start(): Promise<void> {
    const options = [`-p ${this.port}`, `-c unix_socket_directories=${this.root}`, ...SERVER_SETTINGS.map((s) => `-c ${s}`)].join(' ');
    await asPostgres('pg_ctl', ['-D', this.dataDir, '-l', path.join(this.root, 'server.log'), '-o', options, '-w', '-t', '60', 'start']);
    this.running = true;
  }

  /** Stops it: `fast` ends the sessions and shuts down cleanly; `immediate` as a crash would. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    if (!this.running) return;
    await asPostgres('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
    this.running = false;
  }

  /** The postmaster's process id (for signals), while it runs. */
  pid(): number | undefined {
    if (!this.running) return undefined;
    return Number(fs.readFileSync(path.join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  }

  /** Freezes (SIGSTOP) or thaws (SIGCONT) the whole server: freezing the postmaster alone leaves open sessions working. */
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void {
    const pid = this.pid();
    if (!pid) return;
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
    for (const each of [pid, ...children.split('\n').filter((s) => s.trim()).map(Number)]) {
      try {
        process.kill(each, signal);
      } catch {
        // a backend that ended meanwhile
      }
    }
  }

  /** Its log so far (for a failure's message). */
  log(): string {
    const file = path.join(this.root, 'server.log');
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  }

  /** Stops it if it runs (also after a failure) and deletes its directory. */
  async remove(): Promise<void> {
    // a server a test froze (SIGSTOP) could not act on the stop
    try {
      this.signal('SIGCONT');
      await this.stop('immediate');
    } finally {
      fs.rmSync(this.root, { recursive: true, force: true });
    }
  }
}
