/**
 * `npm run manage` commands and the service's first start, as separate processes on a database
 * of their own (PostgreSQL when DATABASE_URL is set, else embedded PGlite), then checked over HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { createLogger } from '../engine/log.js';
import { startService } from '../engine/service.js';
import { Client } from './support/client.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(script: string, args: string[], db: TestDatabase, extraEnv: Record<string, string> = {}, untilStdout?: RegExp): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, BMS_DATA_DIR: db.dataDir, LOG_LEVEL: 'info', ...extraEnv };
    if (db.databaseUrl) env.DATABASE_URL = db.databaseUrl;
    else delete env.DATABASE_URL;
    const child = spawn(process.execPath, [path.join(dist, script), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (untilStdout?.test(stdout)) child.kill('SIGTERM');
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const manage = (db: TestDatabase, ...args: string[]) => run('engine/cli/manage.js', args, db);

async function withService<T>(db: TestDatabase, work: (client: Client) => Promise<T>): Promise<T> {
  const svc = await startService(
    { databaseUrl: db.databaseUrl, dataDir: db.dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent', secureCookies: false },
    createLogger('silent'),
    { quiet: true },
  );
  try {
    return await work(new Client(svc.url));
  } finally {
    await svc.close();
  }
}

describe('manage commands', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  before(async () => (db = await createTestDatabase()));
  after(async () => db.drop());

  it('migrate applies the migrations, then reports the database up to date', async () => {
    const first = await manage(db, 'migrate');
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stdout).to.match(/^Applied \d+ migrations\.\n$/);
    const again = await manage(db, 'migrate');
    expect(again.stdout).to.equal('Database is up to date.\n');
  });

  it('createsuperuser creates a superuser, and exits 1 when the name exists', async () => {
    const ok = await manage(db, 'createsuperuser', '--username', 'ops', '--password', 'long-enough-1', '--email', 'ops@example.com');
    expect(ok.code, ok.stderr).to.equal(0);
    const dup = await manage(db, 'createsuperuser', '--username', 'ops', '--password', 'long-enough-1');
    expect(dup.code).to.equal(1);
    expect(dup.stderr).to.include('user "ops" already exists');
    const missing = await manage(db, 'createsuperuser', '--username', 'x');
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.include('--password is required');
  });

  it('createtoken prints only a token, which authenticates over HTTP', async () => {
    const res = await manage(db, 'createtoken', '--username', 'ops', '--name', 'ci');
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.match(/^[0-9a-f]{64}\n$/);
    const token = res.stdout.trim();
    const unknown = await manage(db, 'createtoken', '--username', 'nobody');
    expect(unknown.code).to.equal(1);
    await withService(db, async (client) => {
      expect((await client.get('/api/issue/tracker', { token })).status).to.equal(200);
      expect((await client.get('/api/issue/tracker', { token: 'x' + token.slice(1) })).status).to.equal(401);
    });
  });

  it('seed fills every module with demo data and a progress bar', async () => {
    const res = await manage(db, 'seed', '--issues', '12');
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stderr).to.match(/\[#+\] \d+\/\d+/);
    expect(res.stdout).to.match(/Seeded \d+ resources/);
    const token = (await manage(db, 'createtoken', '--username', 'ops')).stdout.trim();
    await withService(db, async (client) => {
      const issues = await client.get('/api/issue/issue', { token });
      expect(issues.body).to.have.length(12);
      expect(new Set(issues.body.map((i: any) => i.state)).size).to.be.greaterThan(2);
      for (const path of ['/api/organisation/mitarbeitende', '/api/dms/document', '/api/resources/allocations', '/api/okr/update']) {
        expect((await client.get(path, { token })).body.length, path).to.be.greaterThan(0);
      }
    });
  });

  it('refuses an unknown command with a usage message', async () => {
    const res = await manage(db, 'frobnicate');
    expect(res.code).to.equal(2);
    expect(res.stderr).to.include('Usage: npm run manage');
  });
});

describe('first start', function () {
  this.timeout(120_000);
  it('prints the admin password and a token once, on an empty database only', async () => {
    const db = await createTestDatabase();
    try {
      const first = await run('engine/main.js', [], db, { PORT: '0' }, /"msg":"listening"/);
      const password = /password: (\S+)/.exec(first.stdout)?.[1];
      const token = /API token: ([0-9a-f]{64})/.exec(first.stdout)?.[1];
      expect(password, first.stdout + first.stderr).to.be.a('string');
      expect(token).to.be.a('string');
      const second = await run('engine/main.js', [], db, { PORT: '0' }, /"msg":"listening"/);
      expect(second.stdout).to.not.include('API token');
      await withService(db, async (client) => {
        const me = await client.get('/api/user?username=admin', { token });
        expect(me.status).to.equal(200);
        expect(me.body[0]).to.include({ username: 'admin', is_superuser: true });
        expect(me.body[0]).to.not.have.property('password');
      });
    } finally {
      await db.drop();
    }
  });
});

/** A PGlite test database whatever DATABASE_URL says. */
async function embeddedDatabase(): Promise<TestDatabase> {
  const saved = process.env.DATABASE_URL;
  delete process.env.DATABASE_URL;
  try {
    return await createTestDatabase();
  } finally {
    if (saved !== undefined) process.env.DATABASE_URL = saved;
  }
}

/** `npm start` as a process of its own on `db`, until stopped; resolves once it listens. */
async function startProcess(db: TestDatabase): Promise<{ url: string; token: string | undefined; child: ChildProcess; exited: Promise<number | null> }> {
  const env: NodeJS.ProcessEnv = { ...process.env, BMS_DATA_DIR: db.dataDir, LOG_LEVEL: 'info', PORT: '0' };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, [path.join(dist, 'engine/main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const listening = /"url":"(http:[^"]+)","[^}]*"msg":"listening"/.exec(out);
      if (listening) resolve(listening[1]!);
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    void exited.then((code) => reject(new Error(`the service exited with ${code}: ${out}`)));
  });
  return { url, token: /API token: ([0-9a-f]{64})/.exec(out)?.[1], child, exited };
}

describe('embedded PGlite', function () {
  this.timeout(120_000);

  it('serves one process: a second one is refused at once, and nothing acknowledged is lost (issue 8.12)', async () => {
    const db = await embeddedDatabase();
    try {
      const service = await startProcess(db);
      const client = new Client(service.url, service.token);
      const tracker = await client.post('/api/issue/tracker', { title: 'Acknowledged before the intruder' });
      expect(tracker.status).to.equal(201);
      for (const [script, args] of [['engine/cli/manage.js', ['seed', '--issues', '5']], ['engine/cli/manage.js', ['migrate']], ['engine/main.js', []]] as const) {
        const intruder = await run(script, [...args], db, { PORT: '0' });
        expect(intruder.code, `${script} ${intruder.stderr}`).to.equal(1);
        expect(intruder.stderr).to.include(db.dataDir).and.include(`process ${service.child.pid}`).and.include('DATABASE_URL');
        expect(intruder.stderr).to.not.match(/\n\s+at /);
      }
      const after = await client.post('/api/issue/tracker', { title: 'Acknowledged after the intruder' });
      expect(after.status).to.equal(201);
      service.child.kill('SIGTERM');
      expect(await service.exited).to.equal(0);
      const restarted = await startProcess(db);
      try {
        const again = new Client(restarted.url, service.token);
        expect((await again.get(`/api/issue/tracker/${tracker.body.id}`)).body.title).to.equal('Acknowledged before the intruder');
        expect((await again.get(`/api/issue/tracker/${after.body.id}`)).body.title).to.equal('Acknowledged after the intruder');
      } finally {
        restarted.child.kill('SIGTERM');
        await restarted.exited;
      }
    } finally {
      await db.drop();
    }
  });

  it('takes over the lock of a process that died without releasing it', async () => {
    const db = await embeddedDatabase();
    try {
      const service = await startProcess(db);
      service.child.kill('SIGKILL');
      await service.exited;
      const migrate = await manage(db, 'migrate');
      expect(migrate.code, migrate.stderr).to.equal(0);
      expect(migrate.stdout).to.equal('Database is up to date.\n');
    } finally {
      await db.drop();
    }
  });

  it('keeps its data across a restart', async () => {
    const db = await embeddedDatabase();
    try {
      expect(db.databaseUrl).to.equal(undefined);
      const token = (await manage(db, 'createsuperuser', '--username', 'keeper', '--password', 'long-enough-1'), (await manage(db, 'createtoken', '--username', 'keeper')).stdout.trim());
      const id = await withService(db, async (client) => {
        const res = await client.post('/api/issue/tracker', { title: 'Survives restarts' }, { token });
        expect(res.status).to.equal(201);
        return res.body.id as number;
      });
      await withService(db, async (client) => {
        const res = await client.get(`/api/issue/tracker/${id}`, { token });
        expect(res.status).to.equal(200);
        expect(res.body.title).to.equal('Survives restarts');
      });
    } finally {
      await db.drop();
    }
  });
});
