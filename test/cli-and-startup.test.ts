/**
 * `npm run manage` commands and the service's first start, as separate processes on a database
 * of their own (PostgreSQL when DATABASE_URL is set, else embedded PGlite), then checked over HTTP.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { createLogger } from '../engine/log.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { startService, type RunningService } from '../engine/service.js';
import { Client } from './support/client.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { testConfig } from './support/hooks.js';
import { LOCK_FILE } from '../engine/storage/data-dir-lock.js';
import { dist, manage, processEnv, run, startServiceProcess } from './support/processes.js';
import { until } from './support/wait.js';

async function withService<T>(db: TestDatabase, work: (client: Client, service: RunningService) => Promise<T>): Promise<T> {
  const svc = await startService(
    testConfig(db, { principalCacheMs: 5000 }),
    createLogger('silent'),
    { quiet: true },
  );
  try {
    return await work(new Client(svc.url), svc);
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

  it('seed fills every module with demo data, its progress in plain lines when piped', async () => {
    const res = await manage(db, 'seed', '--issues', '12');
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stderr).to.match(/^Seeding: +\d+\/\d+ records \(\w+/m);
    // no bar redrawn in place: a terminal's frames are garbage in a log
    expect(res.stderr).to.not.include('\r');
    // users and groups come from the commands, not from demo data
    const modules = (await loadRegistry()).resources.filter((r) => r.declaration.module !== 'users');
    expect(res.stdout).to.match(new RegExp(`^Seeded ${modules.length} resources: `));
    expect(res.stdout).to.not.match(/ \d+ (user|customgroup)\b/);
    const token = (await manage(db, 'createtoken', '--username', 'ops')).stdout.trim();
    await withService(db, async (client) => {
      expect((await client.get('/api/user', { token })).body.map((u: any) => u.username)).to.deep.equal(['ops']);
      expect((await client.get('/api/customgroup', { token })).body).to.deep.equal([]);
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

  it('help and --help list the commands, one line each, and exit 0', async () => {
    for (const arg of ['help', '--help']) {
      const res = await manage(db, arg);
      expect(res.code, res.stderr).to.equal(0);
      const lines = res.stdout.split('\n').filter((line) => line.startsWith('  '));
      expect(lines.map((line) => line.trim().split(' ')[0])).to.deep.equal([
        'migrate',
        'createsuperuser',
        'changepassword',
        'createtoken',
        'seed',
        'prune-history',
        'rotate-field-key',
        'makemigrations',
        'run-job',
        'sweep-files',
        'permissions',
        'help',
      ]);
      // the command, then what it does, on the same line
      for (const line of lines) expect(line).to.match(/^ {2}\S.*\S {2,}[a-z].+$/);
      expect(lines[4]).to.match(/^ {2}seed \[--issues N\] /);
    }
  });

  it('seed refuses a count that is not a whole number, naming it', async () => {
    for (const value of ['-5', '1.5', 'many']) {
      const res = await manage(db, 'seed', '--issues', value);
      expect(res.code, value).to.equal(2);
      expect(res.stderr).to.include(`--issues takes a whole number (0 or more), not "${value}".`);
      expect(res.stderr).to.not.include('ambiguous');
    }
  });

  it('createsuperuser takes the password from BMS_SUPERUSER_PASSWORD', async () => {
    const res = await run('engine/cli/manage.js', ['createsuperuser', '--username', 'scripted'], db, { BMS_SUPERUSER_PASSWORD: 'from-the-env-1' });
    expect(res.code, res.stderr).to.equal(0);
    await withService(db, async (client) => {
      expect((await client.post('/api/auth/login', { username: 'scripted', password: 'from-the-env-1' })).status).to.equal(200);
    });
  });

  it('createsuperuser asks twice at a terminal, without echo, and refuses two different passwords', async () => {
    const typed = await atTerminal(db, ['createsuperuser', '--username', 'typist'], ['typed-secret-1', 'typed-secret-1']);
    expect(typed.code, typed.output).to.equal(0);
    expect(typed.output).to.match(/^Password: \r\nPassword \(again\): \r\nSuperuser "typist" created\.\r\n$/);
    const differ = await atTerminal(db, ['createsuperuser', '--username', 'typo'], ['typed-secret-1', 'typed-secret-2']);
    expect(differ.code).to.equal(1);
    expect(differ.output).to.include('Error: the passwords do not match.');
    const token = (await manage(db, 'createtoken', '--username', 'typist')).stdout.trim();
    await withService(db, async (client) => {
      expect((await client.post('/api/auth/login', { username: 'typist', password: 'typed-secret-1' })).status).to.equal(200);
      expect((await client.get('/api/user?username=typo', { token })).body).to.deep.equal([]);
    });
  });
});

describe('manage: passwords and user values, checked as the API checks them', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
    expect((await manage(db, 'createsuperuser', '--username', 'owner', '--password', 'first-secret-1')).code).to.equal(0);
  });
  after(async () => db.drop());
  const signIn = (client: Client, username: string, password: string) => client.post('/api/auth/login', { username, password });

  it('createsuperuser refuses an e-mail address the API refuses, in its words, before asking anything', async () => {
    const res = await manage(db, 'createsuperuser', '--username', 'mailer', '--email', 'not-an-email', '--password', 'long-enough-1');
    expect(res.code, res.stderr).to.equal(2);
    expect(res.stderr).to.equal('email: Enter a valid email address.\n');
    const long = await manage(db, 'createsuperuser', '--username', 'x'.repeat(151), '--password', 'long-enough-1');
    expect(long.code).to.equal(2);
    expect(long.stderr).to.equal('username: Ensure this field has no more than 150 characters.\n');
    expect((await manage(db, 'createtoken', '--username', 'mailer')).stderr).to.include('no user "mailer"');
  });

  it('createsuperuser at a terminal refuses a short password after the first prompt, not the second', async () => {
    const short = await atTerminal(db, ['createsuperuser', '--username', 'hasty'], ['short']);
    expect(short.code, short.output).to.equal(2);
    expect(short.output).to.match(/^Password: \r\npassword: Ensure this field has at least 8 characters\.\r\n$/);
  });

  it('changepassword takes one line on stdin, sets the password and ends the user\'s sessions', async () => {
    const session = await withService(db, async (client) => {
      const login = await signIn(client, 'owner', 'first-secret-1');
      expect(login.status).to.equal(200);
      return login.headers.getSetCookie().map((cookie) => cookie.split(';')[0]).join('; ');
    });
    const res = withStdin(db, ['changepassword', '--username', 'owner', '--password-stdin'], 'second-secret-2\n');
    expect(res.status, res.stderr).to.equal(0);
    expect(res.stdout).to.equal('Password of "owner" changed; their sessions have ended.\n');
    await withService(db, async (client) => {
      expect((await signIn(client, 'owner', 'first-secret-1')).status).to.equal(400);
      expect((await signIn(client, 'owner', 'second-secret-2')).status).to.equal(200);
      const me = await client.get('/api/auth/me', { headers: { cookie: session } });
      expect(me.status, 'the old session has ended').to.equal(401);
    });
  });

  it('changepassword refuses a short password, an unknown user, and a missing password without a terminal', async () => {
    const short = withStdin(db, ['changepassword', '--username', 'owner', '--password-stdin'], 'short\n');
    expect(short.status).to.equal(2);
    expect(short.stderr).to.equal('password: Ensure this field has at least 8 characters.\n');
    const nobody = withStdin(db, ['changepassword', '--username', 'nobody', '--password-stdin'], 'long-enough-1\n');
    expect(nobody.status).to.equal(1);
    expect(nobody.stderr).to.include('no user "nobody"');
    const piped = withStdin(db, ['changepassword', '--username', 'owner'], 'long-enough-1\n');
    expect(piped.status).to.equal(2);
    expect(piped.stderr).to.include('--password-stdin is required unless stdin is a terminal');
  });

  it('changepassword at a terminal asks twice, without echo', async () => {
    const typed = await atTerminal(db, ['changepassword', '--username', 'owner'], ['third-secret-3', 'third-secret-3']);
    expect(typed.code, typed.output).to.equal(0);
    expect(typed.output).to.match(/^Password: \r\nPassword \(again\): \r\nPassword of "owner" changed; their sessions have ended\.\r\n$/);
    await withService(db, async (client) => expect((await signIn(client, 'owner', 'third-secret-3')).status).to.equal(200));
  });
});

describe('a database server that accepts connections and never answers', function () {
  this.timeout(120_000);
  let server: net.Server;
  let port: number;
  const held: net.Socket[] = [];
  before(async () => {
    server = net.createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  after(() => {
    held.forEach((socket) => socket.destroy());
    server.close();
  });

  it('is named, with how long it was given, instead of a pool message', async () => {
    const url = `postgres://app:secret@127.0.0.1:${port}/bms`;
    const res = await run('engine/cli/manage.js', ['migrate'], { databaseUrl: url, dataDir: os.tmpdir(), drop: async () => undefined });
    expect(res.code, res.stderr).to.equal(1);
    expect(res.stderr).to.equal(`Cannot open the database at postgres://app:***@127.0.0.1:${port}/bms (DATABASE_URL): it accepted the connection but did not answer within 10 s.\n`);
  });
});

/** A manage command with `input` piped to its stdin. */
function withStdin(db: TestDatabase, args: string[], input: string) {
  return spawnSync(process.execPath, [path.join(dist, 'engine/cli/manage.js'), ...args], { env: processEnv(db), input, encoding: 'utf8' });
}

/**
 * A manage command in a pseudo-terminal (util-linux `script`), answering each password prompt in
 * turn; `output` is what the terminal showed, typed characters included had they been echoed.
 */
function atTerminal(db: TestDatabase, args: string[], answers: string[]): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, path.join(dist, 'engine/cli/manage.js'), ...args].map((a) => `'${a}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: processEnv(db), stdio: ['pipe', 'pipe', 'pipe'] });
    const pending = [...answers];
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      if (/Password( \(again\))?: $/.test(output) && pending.length) child.stdin.write(`${pending.shift()}\r`);
    });
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('seed in batches', function () {
  this.timeout(300_000);
  const ISSUES = 3000;
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
    await manage(db, 'createsuperuser', '--username', 'seeder', '--password', 'long-enough-1');
  });
  after(async () => db.drop());

  /** Every index and constraint of the schema, as PostgreSQL would make it again. */
  const schemaObjects = (service: RunningService) =>
    service.db.raw(
      `select indexdef as def from pg_indexes where schemaname = current_schema()
       union all select conname || ' ' || pg_get_constraintdef(oid) from pg_constraint where connamespace = current_schema()::regnamespace order by 1`,
    );

  it(`seeds ${ISSUES} issues valid by their declaration (the first 2,000 checked, the rest copied): counts, links within the tracker, state logs, listed by the API, every index and key kept`, async () => {
    const before = await withService(db, async (_, service) => (await schemaObjects(service)).rows);
    const started = Date.now();
    const res = await manage(db, 'seed', '--issues', String(ISSUES));
    expect(res.code, res.stderr).to.equal(0);
    // record by record through the API this took about three minutes; in batches a few seconds
    expect(Date.now() - started, 'ms to seed').to.be.below(90_000);
    const bar = /^Seeding: (\d+)\/\1 records/m.exec(res.stderr);
    expect(Number(bar?.[1]), res.stderr.slice(-300)).to.be.greaterThan(ISSUES);
    expect(res.stdout).to.include(`${ISSUES} issue/issue`);
    const token = (await manage(db, 'createtoken', '--username', 'seeder')).stdout.trim();
    const registry = await loadRegistry();
    const spec = registry.get('issue/issue').fields.find((f) => f.name === 'state')!.spec;
    if (spec.type !== 'state') throw new Error('issue/issue has no state field');

    await withService(db, async (client, service) => {
      // the copies' load drops plain indexes and foreign keys and makes them again
      expect((await schemaObjects(service)).rows).to.deep.equal(before);
      expect(before.filter((o: { def: string }) => /gin_trgm_ops|FOREIGN KEY/.test(o.def))).to.not.be.empty;
      const issues = await client.get('/api/issue/issue', { token });
      expect(issues.status).to.equal(200);
      expect(issues.body).to.have.length(ISSUES);
      const byState = new Map<string, number>();
      for (const i of issues.body as { state: string }[]) byState.set(i.state, (byState.get(i.state) ?? 0) + 1);
      expect(byState.size, JSON.stringify([...byState])).to.be.greaterThan(4);

      // every link stays within the issue's tracker, and there are links
      const categories = new Map(((await client.get('/api/issue/category', { token })).body as { id: number; tracker: number }[]).map((c) => [c.id, c.tracker]));
      const links = (issues.body as { tracker: number; categories: number[] }[]).flatMap((i) => i.categories.map((c) => [i.tracker, categories.get(c)]));
      expect((issues.body as { categories: number[] }[]).filter((i) => i.categories.length === 0)).to.deep.equal([]);
      expect(links.filter(([tracker, owner]) => tracker !== owner)).to.deep.equal([]);

      // each issue's log starts in an initial state and walks declared moves to the state it is in
      const log = (await service.db('state_changes').where({ resource: 'issue/issue', field: 'state' }).orderBy('id').select('record_id', 'from_state', 'to_state')) as { record_id: number; from_state: string | null; to_state: string }[];
      const walks = new Map<number, { from: string | null; to: string }[]>();
      for (const row of log) walks.set(row.record_id, [...(walks.get(row.record_id) ?? []), { from: row.from_state, to: row.to_state }]);
      const problems: string[] = [];
      for (const issue of issues.body as { id: number; state: string }[]) {
        const walk = walks.get(issue.id) ?? [];
        if (walk[0]?.from !== null || !spec.initial.includes(walk[0].to)) problems.push(`${issue.id}: starts ${JSON.stringify(walk[0])}`);
        for (const [k, move] of walk.entries()) if (k > 0 && (move.from !== walk[k - 1]!.to || !(spec.transitions[move.from] ?? []).includes(move.to))) problems.push(`${issue.id}: ${move.from} → ${move.to}`);
        if (walk.at(-1)?.to !== issue.state) problems.push(`${issue.id}: log ends in ${walk.at(-1)?.to}, issue is ${issue.state}`);
        if (!spec.initial.includes(issue.state) && walk.length < 2) problems.push(`${issue.id}: ${issue.state} without moves`);
      }
      expect(problems.slice(0, 10)).to.deep.equal([]);
      expect(walks.size).to.equal(ISSUES);
      const sample = (issues.body as { id: number; state: string }[]).find((i) => i.state === 'resolved')!;
      expect((await client.get(`/api/issue/issue/${sample.id}/transitions`, { token })).body.map((t: { to: string }) => t.to)).to.deep.equal(walks.get(sample.id)!.map((m) => m.to));

      // what the seed wrote, the API accepts back: a PUT of a record's own GET body, for every seeded resource
      const refused: string[] = [];
      for (const r of registry.resources.filter((x) => !['user', 'customgroup'].includes(x.key))) {
        const [record] = (await client.get(`${r.path}?limit=1&ordering=-id`, { token })).body as { id: number }[];
        if (!record) refused.push(`${r.key}: nothing seeded`);
        else {
          const put = await client.put(`${r.path}/${record.id}`, record, { token });
          if (put.status !== 200) refused.push(`${r.key}: ${put.status} ${put.text.slice(0, 200)}`);
        }
      }
      expect(refused).to.deep.equal([]);
    });
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

describe('embedded PGlite', function () {
  this.timeout(120_000);

  it('serves one process: a second one is refused at once, and nothing acknowledged is lost (issue 8.12)', async () => {
    const db = await embeddedDatabase();
    try {
      const service = await startServiceProcess(db);
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
      expect(await service.stop()).to.equal(0);
      const restarted = await startServiceProcess(db);
      try {
        const again = new Client(restarted.url, service.token);
        expect((await again.get(`/api/issue/tracker/${tracker.body.id}`)).body.title).to.equal('Acknowledged before the intruder');
        expect((await again.get(`/api/issue/tracker/${after.body.id}`)).body.title).to.equal('Acknowledged after the intruder');
      } finally {
        await restarted.stop();
      }
    } finally {
      await db.drop();
    }
  });

  it('takes over the lock of a process that died without releasing it', async () => {
    const db = await embeddedDatabase();
    try {
      const service = await startServiceProcess(db);
      service.child.kill('SIGKILL');
      await service.exited;
      const migrate = await manage(db, 'migrate');
      expect(migrate.code, migrate.stderr).to.equal(0);
      expect(migrate.stdout).to.equal('Database is up to date.\n');
    } finally {
      await db.drop();
    }
  });

  it('lets exactly one of several processes take over a stale lock at once (issue 22)', async () => {
    // a process that locks `dir` when told "go", prints won or refused, and holds on until its stdin ends
    const contender = `
      import { lockDataDir, DataDirLockedError } from ${JSON.stringify(pathToFileURL(path.join(dist, 'engine/storage/data-dir-lock.js')).href)};
      process.stdout.write('ready\\n');
      process.stdin.once('data', () => {
        let answer = 'won';
        try { lockDataDir(process.argv[1]); } catch (err) { answer = err instanceof DataDirLockedError ? 'refused' : String(err); }
        process.stdout.write(answer + '\\n');
        process.stdin.resume();
      });`;
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const start = (dir: string) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', contender, dir]);
      const lines: string[] = [];
      child.stdout.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
      const saidMore = (n: number) => until(`${n} lines`, async () => (lines.length >= n ? lines : undefined));
      return { child, lines, saidMore, exited: new Promise((resolve) => child.on('close', resolve)) };
    };
    for (let round = 0; round < 20; round++) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-lock-'));
      try {
        fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: dead, hostname: os.hostname(), since: new Date().toISOString(), command: 'gone' }));
        const contenders = Array.from({ length: 4 }, () => start(dir));
        try {
          await Promise.all(contenders.map((c) => c.saidMore(1)));
          // all loaded and waiting: told at once
          for (const c of contenders) c.child.stdin.write('go\n');
          const answers = (await Promise.all(contenders.map(async (c) => (await c.saidMore(2))[1]))).sort();
          expect(answers, `round ${round}`).to.deep.equal(['refused', 'refused', 'refused', 'won']);
        } finally {
          for (const c of contenders) c.child.stdin.end();
          await Promise.all(contenders.map((c) => c.exited));
        }
        expect(fs.readdirSync(dir), 'the winner released the lock at exit; no claim or draft is left').to.deep.equal([]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
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
