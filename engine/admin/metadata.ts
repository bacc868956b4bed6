/**
 * What the admin app (`/app/`) needs to draw every resource, built once at boot from the registry
 * and the services' filters and orderings: modules, resources, fields with their declarations,
 * relations with their targets, list columns, filters, search, states. The app holds no code of its
 * own for any resource, so a new declaration appears there as it is.
 */
import type { FieldSpec } from '../declare/index.js';
import type { ResourceService } from '../crud/service.js';
import type { Registry } from '../registry/registry.js';
import type { Action, Resource } from '../registry/resource.js';

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

const LABEL_FIELDS = ['title', 'name', 'username', 'label', 'number'];
/** Field types that make a short, useful list column. */
const COLUMN_TYPES = new Set(['state', 'enum', 'boolean', 'date', 'datetime', 'integer', 'decimal', 'string', 'email']);
const DEFAULT_COLUMNS = 6;
/** Lookups offered as controls; `in`, `isnull` and `range` say nothing a form of the others cannot. */
const CONTROL_LOOKUPS: Record<string, string> = { exact: '', member: '', icontains: ' contains', gte: ' from', lte: ' to' };

/** `assigned_user` → "Assigned user". */
export const inWords = (name: string): string => {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

function fieldsOf(resource: Resource): FieldMeta[] {
  const fields: FieldMeta[] = resource.fields
    .filter((f) => f.readable || f.writable)
    .map((f) => {
      const { description, label, ...spec } = f.spec;
      return { name: f.name, label: label ?? inWords(f.name), description, kind: 'field', writeName: f.name, required: f.spec.required ?? false, nullable: f.nullable, writable: f.writable, spec };
    });
  for (const r of resource.foreignKeys) {
    const { label, description, readOnly } = r.spec;
    fields.push({ name: r.name, label: label ?? inWords(r.name), description, kind: 'fk', writeName: r.writeName, required: r.required, nullable: !r.required, writable: !readOnly, target: r.target.key });
  }
  for (const r of resource.manyToMany) {
    const { label, description, readOnly } = r.spec;
    fields.push({ name: r.name, label: label ?? inWords(r.name), description, kind: 'm2m', writeName: r.writeName, required: false, nullable: false, writable: !readOnly, target: r.target.key });
  }
  return fields;
}

function recordLabelOf(resource: Resource): string | null {
  const declared = resource.declaration.recordLabel;
  if (declared !== undefined) return declared;
  return LABEL_FIELDS.find((name) => resource.fields.some((f) => f.name === name && f.readable)) ?? null;
}

function listColumnsOf(resource: Resource, fields: FieldMeta[], recordLabel: string | null): string[] {
  const known = new Set(['id', 'created', 'modified', ...fields.map((f) => f.name)]);
  const declared = resource.declaration.listColumns;
  if (declared) {
    const unknown = declared.find((c) => !known.has(c));
    if (unknown) throw new Error(`Resource "${resource.key}": list column "${unknown}" is neither a field nor a relation.`);
    return [...declared];
  }
  const chosen = ['id', ...(recordLabel ? [recordLabel] : [])];
  for (const f of fields) {
    if (chosen.length >= DEFAULT_COLUMNS) break;
    if (chosen.includes(f.name)) continue;
    if (f.kind === 'fk' || (f.spec && COLUMN_TYPES.has(f.spec.type))) chosen.push(f.name);
  }
  return chosen;
}

function resourceMeta(service: ResourceService): ResourceMeta {
  const { resource } = service;
  const fields = fieldsOf(resource);
  const labelOf = new Map(fields.map((f) => [f.name, f.label]));
  const recordLabel = recordLabelOf(resource);
  const filters = service.filters.flatMap((f): FilterMeta[] => {
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
    recordLabel,
    listColumns: listColumnsOf(resource, fields, recordLabel),
    search: resource.fields.filter((f) => f.spec.search && f.column).map((f) => labelOf.get(f.name) ?? f.name),
    orderable: [...service.orderable.keys()],
    filters,
    fields,
  };
}

export function appMetadata(registry: Registry, services: ReadonlyMap<string, ResourceService>): AppMetadata {
  const resources = Object.fromEntries([...services.values()].map((s) => [s.resource.key, resourceMeta(s)]));
  const modules = [...new Set(registry.resources.map((r) => r.module))]
    .sort()
    .map((name) => ({ name, label: inWords(name), resources: registry.resources.filter((r) => r.module === name).map((r) => r.key) }));
  return { modules, resources, permissionNames: [...registry.permissionNames].sort() };
}
