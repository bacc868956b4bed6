/**
 * A PostgreSQL server of a test's own, to stop, start or freeze without touching the machine's:
 * `initdb` into a temporary directory, listening on a loopback port only. PostgreSQL refuses to run
 * as root, so as root its commands run as the `postgres` OS user (`runuser -u postgres --`).
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const asRoot = process.getuid?.() === 0;

/** The directory of the newest installed server's programs, or '' to find them on PATH. */
function binDir(): string {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return '';
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0]!, 'bin') : '';
}

/** The command line running `program` of the server (as `postgres` when root). */
function command(program: string, args: string[]): [string, string[]] {
  const file = path.join(binDir(), program);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
}

/** Runs a server program without blocking the event loop: the service under test lives in this process. */
async function pg(program: string, args: string[]): Promise<void> {
  await promisify(execFile)(...command(program, args));
}

const pgSync = (program: string, args: string[]) => execFileSync(...command(program, args), { stdio: 'ignore' });

/** A free loopback port (the OS picks it; closed again before the server takes it). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Whether this machine can run a server of a test's own (its programs exist, and a `postgres` user when root). */
export function canRunOwnPostgres(): boolean {
  try {
    pgSync('initdb', ['--version']);
    return true;
  } catch {
    return false;
  }
}

export class OwnPostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  /** Initialises a new cluster (trust authentication, loopback only) in a temporary directory and starts it. */
  static async init(): Promise<OwnPostgres> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-own-pg-'));
    if (asRoot) fs.chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })));
    const own = new OwnPostgres(dir, await freePort());
    try {
      await pg('initdb', ['-D', path.join(dir, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
      await own.start();
      return own;
    } catch (err) {
      own.cleanup();
      throw err;
    }
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  start(): Promise<void> {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -k ${this.dir} -c fsync=off`;
    return pg('pg_ctl', ['start', '-w', '-t', '30', '-D', path.join(this.dir, 'data'), '-l', path.join(this.dir, 'log'), '-o', options]);
  }

  /** A fast shutdown: sessions are ended, the server exits. */
  stop(): Promise<void> {
    return pg('pg_ctl', ['stop', '-w', '-t', '30', '-m', 'fast', '-D', path.join(this.dir, 'data')]);
  }

  /** The postmaster's pid, for SIGSTOP and SIGCONT. */
  get pid(): number {
    return Number(fs.readFileSync(path.join(this.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  }

  /** Every process of the server (postmaster, backends, helpers): freezing the postmaster alone leaves open sessions working. */
  pids(): number[] {
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(this.pid)], { encoding: 'utf8' });
    return [this.pid, ...children.split('\n').filter((s) => s.trim()).map(Number)];
  }

  /** Freezes (SIGSTOP) or thaws (SIGCONT) the whole server. */
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void {
    for (const pid of this.pids()) {
      try {
        process.kill(pid, signal);
      } catch {
        // a backend that ended meanwhile
      }
    }
  }

  /** Stops the server (thawing it first) and removes its directory; safe to call in any state. */
  cleanup(): void {
    try {
      this.signal('SIGCONT');
    } catch {
      // never started
    }
    try {
      pgSync('pg_ctl', ['stop', '-w', '-t', '30', '-m', 'immediate', '-D', path.join(this.dir, 'data')]);
    } catch {
      // not running
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
