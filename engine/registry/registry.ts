/** All declared resources, looked up by key or path; built once at start-up. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BatchDeclaration, DemoRows, ModuleDeclaration, ResourceDeclaration } from '../declare/index.js';
import { compileBatches, compileDeclarations, compileEngineTables } from './compile.js';
import { engineTables } from './engine-tables.js';
import { permissionNamesOf, type Batch, type Resource } from './resource.js';
import { checkFieldPermissions } from '../access/field-permissions.js';

export interface Declarations {
  resources: ResourceDeclaration[];
  batches: BatchDeclaration[];
  /** The modules that declare their names (`moduleLabel` exports). */
  modules?: ModuleDeclaration[];
  /** The modules' demo rows (`demo` exports), for `manage seed --demo`. */
  demo?: DemoRows[];
}

export class Registry {
  /** The modules' resources (`resources/`): what makemigrations, the change capture, the seed and MCP know. */
  readonly resources: readonly Resource[];
  /** The engine's own tables the API serves (registry/engine-tables.ts); their tables are the engine's migrations'. */
  readonly tables: readonly Resource[];
  readonly batches: readonly Batch[];
  /** Deprecated path → the path that replaced it. */
  readonly redirects: readonly (readonly [string, string])[];
  private readonly byKey: ReadonlyMap<string, Resource>;
  /** Every permission name: one per action each resource and engine table serves, and the resources' extraPermissions. */
  readonly permissionNames: ReadonlySet<string>;
  /** Module name → its declaration, for the modules that have one. */
  readonly modules: ReadonlyMap<string, ModuleDeclaration>;
  /** Resource key → its declared demo rows (declare/demo.ts), for the resources that have some. */
  readonly demo: ReadonlyMap<string, readonly Readonly<Record<string, unknown>>[]>;

  constructor(declarations: Declarations) {
    this.resources = compileDeclarations(declarations.resources);
    this.modules = new Map((declarations.modules ?? []).map((m) => [m.name, m]));
    for (const name of this.modules.keys()) {
      if (!this.resources.some((r) => r.module === name)) throw new Error(`Module "${name}" is declared but no resource belongs to it.`);
    }
    this.byKey = new Map(this.resources.map((r) => [r.key, r]));
    this.demo = demoByKey(this.resources, declarations.demo ?? []);
    this.batches = compileBatches(declarations.batches, this.byKey);
    this.redirects = this.resources.flatMap((r) => (r.declaration.deprecatedPaths ?? []).map((old) => [old, r.path] as const));
    for (const [old] of this.redirects) {
      if (this.resources.some((r) => r.path === old || r.path.startsWith(`${old}/`))) throw new Error(`Deprecated path "${old}" is the path of a resource.`);
    }
    this.tables = compileEngineTables(engineTables(this.resources), this.resources);
    this.permissionNames = new Set([...this.resources, ...this.tables].flatMap(permissionNamesOf));
    checkFieldPermissions(this.resources, this.permissionNames);
  }

  get(key: string): Resource {
    const r = this.byKey.get(key);
    if (!r) throw new Error(`No resource "${key}" is declared.`);
    return r;
  }
}

/** The demo rows by the key of the resource they belong to; rows of a resource not declared are a mistake. */
function demoByKey(resources: readonly Resource[], demo: readonly DemoRows[]): Map<string, readonly Readonly<Record<string, unknown>>[]> {
  const byKey = new Map<string, Readonly<Record<string, unknown>>[]>();
  for (const { resource, rows } of demo) {
    // by name, not identity: a registry may be built from copies of the declarations (the tests' do)
    const r = resources.find((x) => x.declaration.module === resource.module && x.declaration.name === resource.name);
    if (!r) throw new Error(`Demo rows of "${resource.module}/${resource.name}": the resource is not among the declared ones (export it in the module's default array).`);
    byKey.set(r.key, [...(byKey.get(r.key) ?? []), ...rows]);
  }
  return byKey;
}

const resourcesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../resources');

/**
 * Imports every module file in `resources/`: its default export (resource declarations) and its
 * optional `batches` and `moduleLabel` exports. Adding a module needs no registration anywhere.
 */
export async function loadDeclarations(dir = resourcesDir): Promise<Declarations> {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.js')).sort();
  const declarations: Required<Declarations> = { resources: [], batches: [], modules: [], demo: [] };
  for (const file of files) {
    const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as {
      default?: ResourceDeclaration[];
      batches?: BatchDeclaration[];
      moduleLabel?: ModuleDeclaration;
      demo?: DemoRows[];
    };
    if (!Array.isArray(mod.default)) throw new Error(`resources/${file} must export default an array of declarations.`);
    declarations.resources.push(...mod.default);
    declarations.batches.push(...(mod.batches ?? []));
    if (mod.moduleLabel) declarations.modules.push(mod.moduleLabel);
    declarations.demo.push(...(mod.demo ?? []));
  }
  return declarations;
}

export async function loadRegistry(): Promise<Registry> {
  return new Registry(await loadDeclarations());
}
