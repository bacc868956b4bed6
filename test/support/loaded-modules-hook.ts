/** The resolve hook of loaded-modules.ts: each ES module's file, appended as it is resolved. */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

let file: string | undefined;

export function initialize(data: { file: string }): void {
  file = data.file;
}

type Resolved = { url: string };
export async function resolve(specifier: string, context: unknown, next: (specifier: string, context: unknown) => Promise<Resolved>): Promise<Resolved> {
  const resolved = await next(specifier, context);
  if (file && resolved.url.startsWith('file:')) fs.appendFileSync(file, `${fileURLToPath(resolved.url)}\n`);
  return resolved;
}
