/**
 * `npm run manage -- <command>`: migrate | createsuperuser | createtoken | seed (CONTRACT 1), changepassword,
 * run-job, and help. Uses the same database selection as the service; settings and arguments are checked
 * before the database is opened.
 */
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { pruneAudit, purgeTrash } from '../history/retention.js';
import { DEFAULT_FILES, readDatabaseConfig, readFileSettings, readRetentionConfig, unbounded } from '../config.js';
import { openBlobStore } from '../files/stores.js';
import { sweepFiles } from '../files/sweep.js';
import { openDatabase } from '../storage/connect.js';
import { migrateLatest } from '../storage/migrate.js';
import { changePassword, createUser, userExists } from '../auth/users.js';
import { createToken } from '../auth/tokens.js';
import { loadRegistry, type Registry } from '../registry/registry.js';
import { StartupError } from '../startup-error.js';
import { rotateFieldKeys, setUpFieldKeys } from '../storage/field-keys.js';
import { seed, seedOptions } from './seed.js';
import { seedDemo } from './seed-demo.js';
import { makemigrations } from './makemigrations.js';
import { runJobNow } from './run-job.js';
import { permissionTable } from './permissions.js';
import { CommandError, InvalidValues, UsageError } from './errors.js';
import { hiddenInput, stdinLine } from './prompt.js';
import { createAjv, compileValidators } from '../crud/validator.js';

const HELP = new Set(['help', '--help', '-h']);
const PASSWORD_ENV = 'BMS_SUPERUSER_PASSWORD';

/** One line per command; seed lists the options the resources declare. */
function commandList(registry: Registry): string {
  const seeds = [...seedOptions(registry).keys()].map((option) => ` [--${option} N]`).join('');
  const rows = [
    ['migrate', 'apply the migrations the database lacks'],
    ['createsuperuser --username U [--password P] [--email E]', `create a superuser; without --password: ${PASSWORD_ENV}, else asked twice at a terminal`],
    ['changepassword --username U [--password-stdin]', 'set a user\'s password and end their sessions; asked twice at a terminal, or one line on stdin'],
    ['createtoken --username U [--name N]', 'print a new API token of the user, alone on stdout'],
    [
      `seed${seeds} [--demo [--seed N]]`,
      "fill every resource with demo data through the API validation (needs a superuser); --demo: the modules' declared demo company (the same N, the same data; a second run adds only what is missing)",
    ],
    ['prune-history', 'purge trash entries older than TRASH_RETENTION_DAYS (30) and audit entries older than AUDIT_RETENTION_DAYS (unset: kept)'],
    ['rotate-field-key', 're-encrypt every encrypted value with FIELD_ENCRYPTION_KEY (the old key in FIELD_ENCRYPTION_PREVIOUS_KEYS)'],
    ['makemigrations [name] [--check] [--allow-drop]', 'write the migration the declarations need; --check: exit 1 if one is needed (no database)'],
    ['run-job NAME', 'run one scheduled job now (the names are listed at /api/jobs)'],
    ['sweep-files [--grace-minutes M]', 'remove stored file bytes no committed row names, and uploads cut off more than M minutes ago (default 60)'],
    ['permissions', 'print every permission name the declarations define, as a markdown table (no database)'],
    ['help', 'print this list'],
  ];
  const width = Math.max(...rows.map(([c]) => c!.length));
  return [
    'Usage: npm run manage -- <command> [options]',
    ...rows.map(([c, text]) => `  ${c!.padEnd(width)}  ${text}`),
    'Database: DATABASE_URL, else the embedded PGlite in BMS_DATA_DIR (default ./data).',
  ].join('\n');
}

function required(values: Record<string, string | undefined>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required.`);
  return v;
}

/** `--issues -5` as `--issues=-5`: parseArgs refuses a dashed value as ambiguous, and the number check should name it. */
function attachDashedNumbers(args: string[], numeric: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const next = args[i + 1];
    if (numeric.has(args[i]!.slice(2)) && args[i]!.startsWith('--') && next !== undefined && /^-[\d.]/.test(next)) out.push(`${args[i]}=${args[++i]}`);
    else out.push(args[i]!);
  }
  return out;
}

/** Checks values of a user as the API checks a PATCH of them (the user resource's rules and messages). */
function userValueCheck(registry: Registry): (values: Record<string, unknown>) => void {
  const validate = compileValidators(createAjv(), registry.get('user')).patch;
  return (values) => {
    const problems = Object.entries(validate(values)).flatMap(([field, messages]) => messages.map((m) => `${field}: ${m}`));
    if (problems.length) throw new InvalidValues(problems.join('\n'));
  };
}

/** A new password: `given`, or typed twice at a terminal, checked before the second prompt. */
async function newPassword(given: string | undefined, check: (values: Record<string, unknown>) => void): Promise<string> {
  if (given !== undefined) {
    check({ password: given });
    return given;
  }
  const ask = hiddenInput();
  const password = await ask('Password: ');
  check({ password });
  if ((await ask('Password (again): ')) !== password) throw new CommandError('the passwords do not match.');
  return password;
}

async function main(argv: string[], registry: Registry): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== undefined && HELP.has(command)) {
    process.stdout.write(`${commandList(registry)}\n`);
    return 0;
  }
  // compares declarations with migrations on a scratch database: opens none of its own
  if (command === 'makemigrations') return makemigrations(rest, registry);
  if (command === 'run-job') return runJobNow(rest, registry);
  if (command === 'permissions') {
    process.stdout.write(`${permissionTable(registry)}\n`);
    return 0;
  }
  const seeds = seedOptions(registry);
  // the one flag among string options, so taken out before they are parsed
  const withoutDemo = rest.filter((arg) => arg !== '--demo');
  const demo = withoutDemo.length < rest.length;
  const { values } = parseArgs({
    args: attachDashedNumbers(withoutDemo, new Set([...seeds.keys(), 'seed'])),
    options: {
      username: { type: 'string' },
      password: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      'grace-minutes': { type: 'string' },
      seed: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      ...Object.fromEntries([...seeds.keys()].map((option) => [option, { type: 'string' as const }])),
    },
    // --demo and --password-stdin, the flags, are read from `rest`: the values are used as strings
  }) as unknown as { values: Record<string, string | undefined> };
  const config = unbounded(readDatabaseConfig());
  // the commands that write encrypted values need the key; the others run without one
  const useKeys = () => setUpFieldKeys(config, registry.resources, (message) => process.stderr.write(`${message}\n`));
  let db: Knex | undefined;
  const open = async () => (db = await openDatabase(config));
  try {
    switch (command) {
      case 'migrate': {
        const conn = await open();
        process.stderr.write('Applying the migrations the database lacks…\n');
        const applied = await migrateLatest(conn);
        process.stdout.write(applied.length ? `Applied ${applied.length} migrations.\n` : 'Database is up to date.\n');
        return 0;
      }
      case 'createsuperuser': {
        const username = required(values, 'username');
        const given = values.password ?? (process.env[PASSWORD_ENV] || undefined);
        if (given === undefined && !process.stdin.isTTY) {
          throw new UsageError(`--password is required (or ${PASSWORD_ENV}), unless stdin is a terminal to type it at.`);
        }
        const check = userValueCheck(registry);
        check({ username, ...(values.email === undefined ? {} : { email: values.email }) });
        const conn = await open();
        await migrateLatest(conn);
        if (await userExists(conn, username)) throw new CommandError(`user "${username}" already exists.`);
        await createUser(conn, { username, password: await newPassword(given, check), email: values.email, isSuperuser: true });
        process.stdout.write(`Superuser "${username}" created.\n`);
        return 0;
      }
      case 'changepassword': {
        const username = required(values, 'username');
        const fromStdin = rest.includes('--password-stdin');
        if (!fromStdin && !process.stdin.isTTY) throw new UsageError('--password-stdin is required unless stdin is a terminal to type the password at.');
        const check = userValueCheck(registry);
        const conn = await open();
        await migrateLatest(conn);
        const user = (await conn('users').where({ username }).first('id')) as { id: number } | undefined;
        if (!user) throw new CommandError(`no user "${username}".`);
        await changePassword(conn, user.id, await newPassword(fromStdin ? await stdinLine() : undefined, check));
        process.stdout.write(`Password of "${username}" changed; their sessions have ended.\n`);
        return 0;
      }
      case 'createtoken': {
        const username = required(values, 'username');
        const conn = await open();
        await migrateLatest(conn);
        const user = (await conn('users').where({ username }).first('id')) as { id: number } | undefined;
        if (!user) throw new CommandError(`no user "${username}".`);
        const { key } = await createToken(conn, user.id, values.name ?? 'cli');
        process.stdout.write(`${key}\n`);
        return 0;
      }
      case 'seed': {
        if (demo || values.seed !== undefined) {
          const given = [...seeds.keys()].find((option) => values[option] !== undefined);
          if (!demo) throw new UsageError('--seed N chooses the demo data: use it with --demo.');
          if (given) throw new UsageError(`--${given} counts generated records; --demo writes the declared demo data: use one or the other.`);
          const raw = values.seed ?? '1';
          if (!/^\d{1,9}$/.test(raw)) throw new UsageError(`--seed takes a whole number (0 or more), not "${raw}".`);
          useKeys();
          const conn = await open();
          await migrateLatest(conn);
          await seedDemo(conn, registry, Number(raw));
          return 0;
        }
        const counts = new Map<string, number>();
        for (const option of seeds.keys()) {
          const raw = values[option];
          if (raw === undefined) continue;
          if (!/^\d+$/.test(raw)) throw new UsageError(`--${option} takes a whole number (0 or more), not "${raw}".`);
          counts.set(option, Number(raw));
        }
        useKeys();
        const conn = await open();
        await migrateLatest(conn);
        process.stderr.write('Seeding every module through the API validation…\n');
        await seed(conn, registry, counts);
        return 0;
      }
      case 'prune-history': {
        const retention = readRetentionConfig();
        const conn = await open();
        await migrateLatest(conn);
        const purged = await purgeTrash(conn, retention.trashDays);
        const pruned = retention.auditDays === undefined ? 'none (AUDIT_RETENTION_DAYS unset)' : String(await pruneAudit(conn, retention.auditDays));
        process.stdout.write(`Trash entries purged: ${purged}. Audit entries pruned: ${pruned}.\n`);
        return 0;
      }
      case 'sweep-files': {
        const grace = values['grace-minutes'] ?? '60';
        if (!/^\d{1,6}$/.test(grace)) throw new UsageError(`--grace-minutes takes a whole number of minutes, not "${grace}".`);
        const conn = await open();
        await migrateLatest(conn);
        const done = await sweepFiles(conn, await openBlobStore({ ...DEFAULT_FILES, ...readFileSettings() }, config.dataDir), registry.resources, Number(grace) * 60_000);
        process.stdout.write(`Removed ${done.blobsRemoved} unreferenced files and ${done.tempsRemoved} cut-off uploads; dropped ${done.versionsDropped} versions of deleted records.\n`);
        return 0;
      }
      case 'rotate-field-key': {
        useKeys();
        const conn = await open();
        await migrateLatest(conn);
        process.stdout.write(`Re-encrypted ${await rotateFieldKeys(conn, registry.resources)} values with the current key.\n`);
        return 0;
      }
      default:
        throw new UsageError(command === undefined ? 'No command given.' : `Unknown command "${command}".`);
    }
  } finally {
    await (db as Knex | undefined)?.destroy();
  }
}

const registry = await loadRegistry();
main(process.argv.slice(2), registry).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError || (err instanceof TypeError && 'code' in err)) {
      process.stderr.write(`${err.message}\n${commandList(registry)}\n`);
      process.exit(2);
    }
    if (err instanceof InvalidValues) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    const known = err instanceof CommandError ? `Error: ${err.message}` : err instanceof StartupError ? err.message : undefined;
    process.stderr.write(`${known ?? (err instanceof Error ? err.stack : String(err))}\n`);
    process.exit(1);
  },
);
