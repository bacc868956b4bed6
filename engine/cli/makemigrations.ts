/**
 * `npm run manage -- makemigrations [name] [--check] [--allow-drop]`: writes the one migration that
 * brings the schema the migrations make to the one the declarations want (engine/schema/), as
 * `migrations/<next number>_<name>.ts`, and prints what it contains. `--check` writes nothing and
 * exits 1 when there is a difference. A change that drops a column or table is written only with
 * `--allow-drop`. Needs no database: the comparison runs on an in-memory PGlite.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Registry } from '../registry/registry.js';
import { compareWithMigrations } from '../schema/compare.js';
import { SchemaConflict, type Change } from '../schema/diff.js';
import { counted, renderMigration } from '../schema/render.js';
import { migrationsDirectory } from '../storage/migrate.js';
import { CommandError, UsageError } from './errors.js';

/** The sources next to the compiled tree: `dist/migrations` → `migrations`. */
const sourceDirectory = path.resolve(migrationsDirectory, '../../migrations');

const NUMBERED = /^(\d+)_.*\.(ts|js)$/;
const files = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => NUMBERED.test(f) && !f.endsWith('.d.ts')) : []);
const stem = (file: string): string => file.replace(/\.(ts|js)$/, '');

function nextNumber(): string {
  const numbers = [...files(sourceDirectory), ...files(migrationsDirectory)].map((f) => Number(NUMBERED.exec(f)![1]));
  return String(Math.max(0, ...numbers) + 1).padStart(4, '0');
}

/** A source migration not compiled yet would be missing from the comparison and generated again. */
function refuseUnbuilt(): void {
  const built = new Set(files(migrationsDirectory).filter((f) => f.endsWith('.js')).map(stem));
  const unbuilt = files(sourceDirectory).filter((f) => f.endsWith('.ts') && !built.has(stem(f)));
  if (unbuilt.length) throw new CommandError(`migrations/${unbuilt[0]} is not compiled: run \`npm run build\` first (npm run manage does).`);
}

/** The migration's name when none is given: the one table it touches, else `schema`. */
function nameOf(changes: Change[]): string {
  const tables = new Set(changes.map((c) => c.table));
  return tables.size === 1 ? [...tables][0]! : 'schema';
}

const listing = (changes: Change[]): string => changes.map((c) => `  ${c.summary}\n`).join('');

export async function makemigrations(args: string[], registry: Registry): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { check: { type: 'boolean' }, 'allow-drop': { type: 'boolean' } },
    allowPositionals: true,
  });
  if (positionals.length > 1) throw new UsageError('makemigrations takes one name at most.');
  const name = positionals[0];
  if (name !== undefined && !/^[a-z][a-z0-9_]{0,59}$/.test(name)) throw new UsageError('The migration name takes lower-case letters, digits and underscores, starting with a letter.');
  refuseUnbuilt();
  // tens of seconds on a busy machine: say what the wait is (stderr: stdout is the result)
  process.stderr.write('Comparing the declarations with the schema the migrations make (on an in-memory database)…\n');
  const changes = await compareWithMigrations(registry).catch((err: unknown) => {
    throw err instanceof SchemaConflict ? new CommandError(err.message) : err;
  });
  if (!changes.length) {
    process.stdout.write('No changes: the migrations make the schema the declarations describe.\n');
    return 0;
  }
  if (values.check) {
    process.stdout.write(`The migrations and the declarations disagree (${counted(changes)}):\n${listing(changes)}`);
    process.stdout.write('Run `npm run manage -- makemigrations` to write the migration.\n');
    return 1;
  }
  const drops = changes.filter((c) => c.drops);
  if (drops.length && !values['allow-drop']) {
    process.stderr.write(`Nothing written: the migration would drop stored data:\n${listing(drops)}Run again with --allow-drop to write it.\n`);
    return 1;
  }
  const file = `${nextNumber()}_${name ?? nameOf(changes)}.ts`;
  fs.mkdirSync(sourceDirectory, { recursive: true });
  fs.writeFileSync(path.join(sourceDirectory, file), renderMigration(changes));
  process.stdout.write(`Wrote migrations/${file} (${counted(changes)}):\n${listing(changes)}`);
  process.stdout.write('Apply it with `npm run manage -- migrate` (the service also migrates when it starts).\n');
  return 0;
}
