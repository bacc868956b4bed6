/** All declared resources, looked up by key or path; built once at start-up. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BatchDeclaration, ResourceDeclaration } from '../declare/index.js';
import { compileBatches, compileDeclarations } from './compile.js';
import { ACTIONS, type Batch, type Resource } from './resource.js';
import { checkFieldPermissions } from '../access/field-permissions.js';

/** Permissions of the engine's own endpoints (the audit trail, webhooks), which no declaration defines. */
export const FEATURE_PERMISSIONS = [
  'audit.view_entry',
  'webhook.view_subscription',
  'webhook.add_subscription',
  'webhook.change_subscription',
  'webhook.delete_subscription',
  'webhook.view_delivery',
] as const;

export interface Declarations {
  resources: ResourceDeclaration[];
  batches: BatchDeclaration[];
}

export class Registry {
  readonly resources: readonly Resource[];
  readonly batches: readonly Batch[];
  /** Deprecated path → the path that replaced it. */
  readonly redirects: readonly (readonly [string, string])[];
  private readonly byKey: ReadonlyMap<string, Resource>;
  /** Every permission name the resources define, plus extra ones engine features need. */
  readonly permissionNames: ReadonlySet<string>;

  constructor(declarations: Declarations) {
    this.resources = compileDeclarations(declarations.resources);
    this.byKey = new Map(this.resources.map((r) => [r.key, r]));
    this.batches = compileBatches(declarations.batches, this.byKey);
    this.redirects = this.resources.flatMap((r) => (r.declaration.deprecatedPaths ?? []).map((old) => [old, r.path] as const));
    for (const [old] of this.redirects) {
      if (this.resources.some((r) => r.path === old || r.path.startsWith(`${old}/`))) throw new Error(`Deprecated path "${old}" is the path of a resource.`);
    }
    this.permissionNames = new Set([...this.resources.flatMap((r) => [...ACTIONS.map((a) => r.permissions[a]), ...r.extraPermissions]), ...FEATURE_PERMISSIONS]);
    checkFieldPermissions(this.resources, this.permissionNames);
  }

  get(key: string): Resource {
    const r = this.byKey.get(key);
    if (!r) throw new Error(`No resource "${key}" is declared.`);
    return r;
  }
}

const resourcesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../resources');

/**
 * Imports every module file in `resources/`: its default export (resource declarations) and its
 * optional `batches` export. Adding a module needs no registration anywhere.
 */
export async function loadDeclarations(dir = resourcesDir): Promise<Declarations> {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.js')).sort();
  const declarations: Declarations = { resources: [], batches: [] };
  for (const file of files) {
    const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { default?: ResourceDeclaration[]; batches?: BatchDeclaration[] };
    if (!Array.isArray(mod.default)) throw new Error(`resources/${file} must export default an array of declarations.`);
    declarations.resources.push(...mod.default);
    declarations.batches.push(...(mod.batches ?? []));
  }
  return declarations;
}

export async function loadRegistry(): Promise<Registry> {
  return new Registry(await loadDeclarations());
}
