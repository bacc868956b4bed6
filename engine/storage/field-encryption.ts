/**
 * Values encrypted at rest (AES-256-GCM, node's crypto): a field type's `store` encrypts, so every
 * write path stores the same token, `enc:v1:<key id>:<iv, tag and ciphertext, base64url>`. Records
 * are built as JSON by PostgreSQL, which cannot decrypt, so the token travels inside the served text
 * (entity tags and If-Match compare it, as they compare any stored value) and `revealValues` turns
 * each token back into its JSON string where a text leaves the process. The key id names the key a
 * value was encrypted with, so values under a previous key stay readable until `rotate` re-encrypts them.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';
/** A token's text begins `"enc:` + `v1:` (holdsToken). */
const [HEAD, TAIL] = [`"${PREFIX.slice(0, -3)}`, PREFIX.slice(-3)];
const TOKEN = /"enc:v1:([0-9a-f]{8}):([A-Za-z0-9_-]+)"/g;
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface Key {
  id: string;
  bytes: Buffer;
}

/** 64 hexadecimal characters: 32 bytes. */
export const KEY_PATTERN = /^[0-9a-fA-F]{64}$/;

let keys: { current: Key; all: Map<string, Key> } | undefined;

function keyOf(hex: string): Key {
  const bytes = Buffer.from(hex, 'hex');
  return { bytes, id: createHash('sha256').update(bytes).digest('hex').slice(0, 8) };
}

/** Encrypts new values with `current`; reads values encrypted with it or any of `previous`. */
export function useFieldKeys(current: string, previous: readonly string[] = []): void {
  const all = [current, ...previous].map(keyOf);
  keys = { current: all[0]!, all: new Map(all.map((k) => [k.id, k])) };
}

export function encryptValue(text: string): string {
  if (!keys) throw new Error('No field encryption key is in use (FIELD_ENCRYPTION_KEY is read when the service starts).');
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keys.current.bytes, iv);
  const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return `${PREFIX}${keys.current.id}:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
}

/** The plain text of a token's parts; undefined when no key in use opens it. */
function open(id: string, data: string): string | undefined {
  const key = keys?.all.get(id);
  if (!key) return undefined;
  const raw = Buffer.from(data, 'base64url');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** The plain text of a stored token; undefined when it is none or no key in use opens it. */
export function decryptValue(token: string): string | undefined {
  const m = /^enc:v1:([0-9a-f]{8}):([A-Za-z0-9_-]+)$/.exec(token);
  return m ? open(m[1]!, m[2]!) : undefined;
}

/** Whether a stored token was encrypted with the current key. */
export const underCurrentKey = (token: string): boolean => keys !== undefined && token.startsWith(`${PREFIX}${keys.current.id}:`);

/**
 * Whether `json` holds a token's beginning (`"enc:v1:`). Every list page is asked, most hold none:
 * V8 finds a pattern that begins with `"` by stopping at each quote of the JSON (18 µs for a page
 * of 100 records, 46 kB), and `v1:` by skipping to each rare `v` (3 µs), so that is looked for.
 */
function holdsToken(json: string): boolean {
  for (let at = json.indexOf(TAIL); at !== -1; at = json.indexOf(TAIL, at + TAIL.length)) if (json.startsWith(HEAD, at - HEAD.length)) return true;
  return false;
}

/** `json` with each encrypted value's token replaced by the value (a token no key opens stays as it is). */
export function revealValues(json: string): string {
  if (!keys || !holdsToken(json)) return json;
  return json.replace(TOKEN, (token, id: string, data: string) => {
    const plain = open(id, data);
    return plain === undefined ? token : JSON.stringify(plain);
  });
}
