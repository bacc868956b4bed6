/**
 * What the admin app (`/app/`) needs to draw every resource, rendered once at boot from each
 * resource's view (describe/view.ts): modules, resources, fields with their declarations,
 * relations with their targets, list columns, filters as controls, search, states. The app holds no code of its
 * own for any resource, so a new declaration appears there as it is.
 */
import type { FieldSpec } from '../declare/index.js';
import type { ResourceService } from '../crud/service.js';
import { inWords, type ViewEntry } from '../describe/view.js';
import type { Registry } from '../registry/registry.js';
import type { Action } from '../registry/resource.js';

export interface FieldMeta {
  name: string;
  label: string;
  description: string;
  kind: 'field' | 'fk' | 'm2m';
  /** The body key: the field's name, `x_id` or `x_ids`. */
  writeName: string;
  required: boolean;
  nullable: boolean;
  /** Shown but never sent (read-only and derived fields, read-only relations). */
  writable: boolean;
  /** The declared field (type, lengths, values, transitions…) but its description and label; absent for relations. */
  spec?: Omit<FieldSpec, 'description' | 'label'>;
  /** Resource key of a relation's target. */
  target?: string;
  /** The permissions needed to see it (`read`) and to set it (`write`): the app hides it from those without. */
  permission?: { read?: string; write?: string };
}

export interface FilterMeta {
  param: string;
  /** The field or relation it filters on. */
  key: string;
  lookup: string;
  label: string;
}

export interface ResourceMeta {
  key: string;
  path: string;
  module: string;
  title: string;
  description: string;
  permissions: Record<Action, string>;
  recordLabel: string | null;
  listColumns: string[];
  /** Labels of the fields `search` looks in; empty: no search. */
  search: string[];
  orderable: string[];
  filters: FilterMeta[];
  fields: FieldMeta[];
}

export interface AppMetadata {
  modules: { name: string; label: string; resources: string[] }[];
  resources: Record<string, ResourceMeta>;
  permissionNames: string[];
}

/** Lookups offered as controls; `in`, `isnull` and `range` say nothing a form of the others cannot. */
const CONTROL_LOOKUPS: Record<string, string> = { exact: '', member: '', icontains: ' contains', gte: ' from', lte: ' to' };

function fieldMeta(e: ViewEntry): FieldMeta {
  const { name, label, description, kind, writeName, required, nullable, writable } = e;
  const meta: FieldMeta = { name, label, description, kind, writeName, required, nullable, writable };
  if (e.kind === 'field') meta.spec = e.details;
  else meta.target = e.target.key;
  if (e.permission) meta.permission = e.permission;
  return meta;
}

function resourceMeta({ view }: ResourceService): ResourceMeta {
  const { resource } = view;
  const labelOf = new Map(view.entries.map((e) => [e.name, e.label]));
  const filters = view.filters.flatMap((f): FilterMeta[] => {
    const suffix = CONTROL_LOOKUPS[f.on.lookup];
    const label = labelOf.get(f.on.key);
    // one control per lookup: the bare parameter, or a bound
    if (suffix === undefined || label === undefined) return [];
    if (f.param !== f.on.key && f.on.lookup !== 'gte' && f.on.lookup !== 'lte') return [];
    return [{ param: f.param, key: f.on.key, lookup: f.on.lookup, label: `${label}${suffix}` }];
  });
  return {
    key: resource.key,
    path: resource.path,
    module: resource.module,
    title: resource.title,
    description: resource.description,
    permissions: resource.permissions,
    recordLabel: view.recordLabel,
    listColumns: view.listColumns,
    search: view.search.map((f) => f.label),
    orderable: view.orderable,
    filters,
    fields: view.entries.map(fieldMeta),
  };
}

export function appMetadata(registry: Registry, services: ReadonlyMap<string, ResourceService>): AppMetadata {
  const resources = Object.fromEntries([...services.values()].map((s) => [s.resource.key, resourceMeta(s)]));
  const modules = [...new Set(registry.resources.map((r) => r.module))]
    .sort()
    .map((name) => ({ name, label: inWords(name), resources: registry.resources.filter((r) => r.module === name).map((r) => r.key) }));
  return { modules, resources, permissionNames: [...registry.permissionNames].sort() };
}
