/** All declared resources, looked up by key or path; built once at start-up. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ResourceDeclaration } from '../declare/index.js';
import { compileDeclarations } from './compile.js';
import { ACTIONS, type Resource } from './resource.js';

export class Registry {
  readonly resources: readonly Resource[];
  private readonly byKey: ReadonlyMap<string, Resource>;
  /** Every permission name the resources define, plus extra ones engine features need. */
  readonly permissionNames: ReadonlySet<string>;

  constructor(declarations: readonly ResourceDeclaration[]) {
    this.resources = compileDeclarations(declarations);
    this.byKey = new Map(this.resources.map((r) => [r.key, r]));
    this.permissionNames = new Set(this.resources.flatMap((r) => ACTIONS.map((a) => r.permissions[a])));
  }

  get(key: string): Resource {
    const r = this.byKey.get(key);
    if (!r) throw new Error(`No resource "${key}" is declared.`);
    return r;
  }
  has(key: string): boolean {
    return this.byKey.has(key);
  }
}

const resourcesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../resources');

/** Imports every module file in `resources/`: adding a module needs no registration anywhere. */
export async function loadDeclarations(dir = resourcesDir): Promise<ResourceDeclaration[]> {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.js')).sort();
  const declarations: ResourceDeclaration[] = [];
  for (const file of files) {
    const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { default?: ResourceDeclaration[] };
    if (!Array.isArray(mod.default)) throw new Error(`resources/${file} must export default an array of declarations.`);
    declarations.push(...mod.default);
  }
  return declarations;
}

export async function loadRegistry(): Promise<Registry> {
  return new Registry(await loadDeclarations());
}
