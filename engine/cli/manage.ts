/**
 * `npm run manage -- <command>`: migrate | createsuperuser | createtoken | seed (CONTRACT 1).
 * Uses the same database selection as the service.
 */
import { parseArgs } from 'node:util';
import { readConfig } from '../config.js';
import { connect } from '../storage/connect.js';
import { migrateLatest } from '../storage/migrate.js';
import { createUser, userExists } from '../auth/users.js';
import { createToken } from '../auth/tokens.js';
import { loadRegistry } from '../registry/registry.js';
import { seed, seedOptions } from './seed.js';
import { CommandError, UsageError } from './errors.js';
import { DataDirLockedError } from '../storage/data-dir-lock.js';

function required(values: Record<string, string | undefined>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required.`);
  return v;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // seed takes the options its resources declare (`--issues N`)
  const registry = command === 'seed' ? await loadRegistry() : undefined;
  const seeds = registry ? seedOptions(registry) : new Map();
  const { values } = parseArgs({
    args: rest,
    options: {
      username: { type: 'string' },
      password: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      ...Object.fromEntries([...seeds.keys()].map((option) => [option, { type: 'string' as const }])),
    },
  }) as { values: Record<string, string | undefined> };
  const db = connect(readConfig());
  try {
    switch (command) {
      case 'migrate': {
        const applied = await migrateLatest(db);
        process.stdout.write(applied.length ? `Applied ${applied.length} migrations.\n` : 'Database is up to date.\n');
        return 0;
      }
      case 'createsuperuser': {
        const username = required(values, 'username');
        const password = required(values, 'password');
        await migrateLatest(db);
        if (await userExists(db, username)) {
          process.stderr.write(`Error: user "${username}" already exists.\n`);
          return 1;
        }
        if (password.length < 8) throw new UsageError('--password must have at least 8 characters.');
        await createUser(db, { username, password, email: values.email, isSuperuser: true });
        process.stdout.write(`Superuser "${username}" created.\n`);
        return 0;
      }
      case 'createtoken': {
        const username = required(values, 'username');
        await migrateLatest(db);
        const user = (await db('users').where({ username }).first('id')) as { id: number } | undefined;
        if (!user) {
          process.stderr.write(`Error: no user "${username}".\n`);
          return 1;
        }
        const { key } = await createToken(db, user.id, values.name ?? 'cli');
        process.stdout.write(`${key}\n`);
        return 0;
      }
      case 'seed': {
        const counts = new Map<string, number>();
        for (const option of seeds.keys()) {
          const raw = values[option];
          if (raw === undefined) continue;
          const n = Number(raw);
          if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${option} takes a whole number.`);
          counts.set(option, n);
        }
        await migrateLatest(db);
        await seed(db, registry!, counts);
        return 0;
      }
      default:
        throw new UsageError(`Unknown command "${command ?? ''}".`);
    }
  } finally {
    await db.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError || (err instanceof TypeError && 'code' in err)) {
      process.stderr.write(`${err.message}\nUsage: npm run manage -- migrate | createsuperuser --username U --password P [--email E] | createtoken --username U [--name N] | seed [--issues N]\n`);
      process.exit(2);
    }
    const refusal = err instanceof CommandError || err instanceof DataDirLockedError;
    process.stderr.write(`${refusal ? `Error: ${err.message}` : err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
