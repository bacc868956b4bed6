/**
 * What the admin app (`/app/`) needs to draw every resource, rendered once at boot from each
 * resource's view (describe/view.ts): modules, resources, fields with their declarations and
 * their labels and value names in English and German, relations with their targets, the foreign
 * keys of other resources pointing at each one, list columns, filters as controls, search,
 * states. The app holds no code of its own for any resource, so a new declaration appears there
 * as it is.
 */
import type { FieldSpec } from '../declare/index.js';
import type { ResourceService } from '../crud/service.js';
import { inWords, type Texts, type ViewEntry } from '../describe/view.js';
import type { Registry } from '../registry/registry.js';
import { permissionOf, type Action } from '../registry/resource.js';

export interface FieldMeta {
  name: string;
  label: string;
  /** The label in English and German. */
  labels: Texts;
  description: string;
  kind: 'field' | 'fk' | 'm2m';
  /** The body key: the field's name, `x_id` or `x_ids`. */
  writeName: string;
  required: boolean;
  nullable: boolean;
  /** Shown but never sent (read-only and derived fields, read-only relations). */
  writable: boolean;
  /** The declared field (type, lengths, values, transitions…) but its description and label; absent for relations. */
  spec?: Omit<FieldSpec, 'description' | 'label' | 'labelDe' | 'valueLabels'>;
  /** Of an enum or state field: each value and what it is called. */
  choices?: { value: string; labels: Texts }[];
  /** Resource key of a relation's target. */
  target?: string;
  /** The permissions needed to see it (`read`) and to set it (`write`): the app hides it from those without. */
  permission?: { read?: string; write?: string };
}

/** A foreign key of another resource pointing here, with the list filter that finds a record's referrers. */
export interface ReferrerMeta {
  resource: string;
  relation: string;
  param: string;
  /** The relation's label in English and German. */
  labels: Texts;
  /** Deleting a record it points at is refused while it does. */
  protects: boolean;
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
  /** The title in English (as declared) and German. */
  titles: Texts;
  description: string;
  permissions: Record<Action, string>;
  recordLabel: string | null;
  listColumns: string[];
  /** Labels of the fields `search` looks in; empty: no search. */
  search: string[];
  orderable: string[];
  filters: FilterMeta[];
  fields: FieldMeta[];
  /** Foreign keys to the user each record is assigned to (the dashboard's "assigned to me"). */
  assignees: string[];
  /** Foreign keys of other resources pointing here (a record's related lists, a refused delete's holders). */
  referrers: ReferrerMeta[];
  /** Declared `trash: true`: a deleted record goes to the trash, whence it can be restored. */
  trash: boolean;
}

/** An engine table the app reads (the audit trail, the trash): where, and the permission names of its actions (none for the trash's, whose records' own decide). */
export interface TableMeta {
  path: string;
  permissions: Partial<Record<Action, string>>;
}

export interface AppMetadata {
  modules: { name: string; label: string; labels: Texts; resources: string[] }[];
  resources: Record<string, ResourceMeta>;
  permissionNames: string[];
  /** The engine's own tables by key (`audit`, `trash`), so the app names no path or permission of its own. */
  tables: Record<string, TableMeta>;
}

/** Lookups offered as controls; `in`, `isnull` and `range` say nothing a form of the others cannot. */
const CONTROL_LOOKUPS: Record<string, string> = { exact: '', member: '', icontains: ' contains', gte: ' from', lte: ' to' };

function fieldMeta(e: ViewEntry): FieldMeta {
  const { name, label, labels, description, kind, writeName, required, nullable, writable } = e;
  const meta: FieldMeta = { name, label, labels, description, kind, writeName, required, nullable, writable };
  if (e.kind === 'field') {
    meta.spec = e.details;
    if (e.choices) meta.choices = e.choices;
  } else meta.target = e.target.key;
  if (e.permission) meta.permission = e.permission;
  return meta;
}

/** Per target resource, the filterable foreign keys pointing at it. */
function referrersByTarget(services: Iterable<ResourceService>): Map<string, ReferrerMeta[]> {
  const byTarget = new Map<string, ReferrerMeta[]>();
  for (const { view } of services) {
    for (const e of view.entries) {
      if (e.kind !== 'fk') continue;
      const filter = view.filters.find((f) => f.on.key === e.name && f.on.lookup === 'exact');
      if (!filter) continue;
      const referrer = { resource: view.resource.key, relation: e.name, param: filter.param, labels: e.labels, protects: e.relation.spec.onDelete === 'protect' };
      byTarget.set(e.target.key, [...(byTarget.get(e.target.key) ?? []), referrer]);
    }
  }
  return byTarget;
}

function resourceMeta({ view }: ResourceService, referrers: ReferrerMeta[]): ResourceMeta {
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
    titles: { en: resource.title, de: resource.declaration.titleDe ?? resource.title },
    description: resource.description,
    permissions: resource.permissions,
    recordLabel: view.recordLabel,
    listColumns: view.listColumns,
    search: view.search.map((f) => f.label),
    orderable: view.orderable,
    filters,
    fields: view.entries.map(fieldMeta),
    assignees: view.entries.filter((e) => e.kind === 'fk' && e.relation.spec.assignee && filters.some((f) => f.param === e.name)).map((e) => e.name),
    referrers,
    trash: resource.declaration.trash === true,
  };
}

export function appMetadata(registry: Registry, services: ReadonlyMap<string, ResourceService>): AppMetadata {
  const referrers = referrersByTarget(services.values());
  const resources = Object.fromEntries([...services.values()].map((s) => [s.resource.key, resourceMeta(s, referrers.get(s.resource.key) ?? [])]));
  const modules = [...new Set(registry.resources.map((r) => r.module))].map((name) => {
    const declared = registry.modules.get(name);
    const label = declared?.label ?? inWords(name);
    return { name, label, labels: { en: label, de: declared?.labelDe ?? label }, resources: registry.resources.filter((r) => r.module === name).map((r) => r.key) };
  });
  modules.sort((a, b) => a.label.localeCompare(b.label));
  const tables = Object.fromEntries(registry.tables.map((t) => [t.key, { path: t.path, permissions: Object.fromEntries(t.actions.map((a) => [a, permissionOf(t, a)]).filter(([, name]) => name !== undefined)) }]));
  return { modules, resources, permissionNames: [...registry.permissionNames].sort(), tables };
}
