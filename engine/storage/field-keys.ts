/**
 * Where the field encryption key comes from when the service or a command starts: FIELD_ENCRYPTION_KEY
 * (with FIELD_ENCRYPTION_PREVIOUS_KEYS for values not yet rotated). Only declarations with an
 * encrypted field need it. Without it, the embedded database keeps a key of its own beside its data
 * (created on first start, and said so); a PostgreSQL server's processes must all share one, so there
 * its absence stops the start. `rotate` re-encrypts every stored value with the current key.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { DatabaseConfig } from '../config.js';
import { typeOf } from '../fields/index.js';
import type { Resource } from '../registry/resource.js';
import { StartupError } from '../startup-error.js';
import { withoutCapture } from '../audit/actor.js';
import { decryptValue, encryptValue, KEY_PATTERN, underCurrentKey, useFieldKeys } from './field-encryption.js';

/** The embedded database's own key, under BMS_DATA_DIR. */
export const KEY_FILE = 'field-encryption.key';

/** The encrypted columns of `resources`. */
const encryptedFields = (resources: readonly Resource[]) =>
  resources.flatMap((r) => r.fields.filter((f) => typeOf(f.spec).encrypted && f.column).map((f) => ({ resource: r, column: f.column! })));

/** The embedded database's key, created with the data directory's first start. */
function embeddedKey(dataDir: string, say: (message: string) => void): string {
  const file = path.join(dataDir, KEY_FILE);
  if (fs.existsSync(file)) {
    const key = fs.readFileSync(file, 'utf8').trim();
    if (!KEY_PATTERN.test(key)) throw new StartupError(`${file} does not hold a field encryption key (64 hexadecimal characters).`);
    return key;
  }
  const key = randomBytes(32).toString('hex');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  say(`Created a field encryption key in ${file}: encrypted fields cannot be read without it, so back it up with the data (or set FIELD_ENCRYPTION_KEY).`);
  return key;
}

/** Puts the key in use where the declarations have encrypted fields; a clear start error when there is none to use. `say` tells of a key created. */
export function setUpFieldKeys(config: DatabaseConfig, resources: readonly Resource[], say: (message: string) => void): void {
  if (encryptedFields(resources).length === 0) return;
  const given = config.fieldKeys?.current;
  if (given === undefined && config.databaseUrl) {
    throw new StartupError(
      'FIELD_ENCRYPTION_KEY is not set: encrypted fields (an employee\'s AHV number and IBAN) need it. Set it to 64 hexadecimal characters (`openssl rand -hex 32`), the same for every process on this database, and keep it safe.',
    );
  }
  useFieldKeys(given ?? embeddedKey(config.dataDir, say), config.fieldKeys?.previous ?? []);
}

/**
 * Re-encrypts with the current key every stored value under another one, in one transaction
 * that the change capture skips;
 * answers how many. A value no key in use opens stops it (the previous key is missing).
 */
export async function rotateFieldKeys(db: Knex, resources: readonly Resource[]): Promise<number> {
  let count = 0;
  await db.transaction(async (trx) => {
    // the values do not change, only their encryption: no audit entries, no webhook events
    await withoutCapture(trx);
    for (const { resource, column } of encryptedFields(resources)) {
      const rows = (await trx(resource.table).select('id', column).whereNotNull(column).forUpdate()) as Record<string, unknown>[];
      for (const row of rows) {
        const token = row[column] as string;
        if (underCurrentKey(token)) continue;
        const plain = decryptValue(token);
        if (plain === undefined) throw new StartupError(`${resource.table}.${column} of record ${String(row.id)} opens with none of the keys given: add its key to FIELD_ENCRYPTION_PREVIOUS_KEYS.`);
        await trx(resource.table).where({ id: row.id }).update({ [column]: encryptValue(plain) });
        count++;
      }
    }
  });
  return count;
}
