/**
 * One compiled description of a resource for everything that shows it to readers: the OpenAPI
 * document, the MCP tools' descriptions and the admin app's metadata are renderings of this view,
 * built once per resource at boot. A new declaration key that readers should see is added here
 * once, and each rendering picks it up from the same place.
 */
import type { FieldSpec, ValueLabel } from '../declare/index.js';
import type { AttachmentsField, FileField } from '../declare/fields.js';
import type { FieldMask } from '../access/field-permissions.js';
import type { Filter } from '../crud/filters.js';
import type { OrderColumn } from '../crud/keyset.js';
import type { Field, ForeignKeyRef, ManyToManyRef, Resource } from '../registry/resource.js';

/** A text in the admin app's two languages; German falls back to English. */
export interface Texts {
  en: string;
  de: string;
}

interface ViewEntryBase {
  name: string;
  /** The declared label, else the name in words. */
  label: string;
  /** `label`, and the declared German one (else the same). */
  labels: Texts;
  description: string;
  /** The body key: the field's name, `x_id` or `x_ids`. */
  writeName: string;
  required: boolean;
  nullable: boolean;
  /** Served in responses (false for passwords). */
  readable: boolean;
  /** Accepted in bodies (false for read-only and derived fields, read-only relations). */
  writable: boolean;
  /** The permissions a caller needs to be served it (`read`) and to set it (`write`), where declared. */
  permission?: { read?: string; write?: string };
}

export interface ViewField extends ViewEntryBase {
  kind: 'field';
  field: Field;
  spec: FieldSpec;
  /** The declaration but its texts: type, lengths, values, transitions… */
  details: Omit<FieldSpec, 'description' | 'label' | 'labelDe' | 'valueLabels'>;
  /** Of an enum or state field: each value's name, declared or in words. */
  choices?: { value: string; labels: Texts }[];
}
export interface ViewForeignKey extends ViewEntryBase {
  kind: 'fk';
  relation: ForeignKeyRef;
  target: Resource;
}
export interface ViewLinks extends ViewEntryBase {
  kind: 'm2m';
  relation: ManyToManyRef;
  target: Resource;
}
/** A file field (one file, versioned) or a resource's attachments (a list of files). */
export type ViewFileField = ViewField & { spec: FileField | AttachmentsField };
/** A field or relation as readers see it, in declaration order: fields, then foreign keys, then links. */
export type ViewEntry = ViewField | ViewForeignKey | ViewLinks;

export interface ResourceView {
  resource: Resource;
  /** Every field and relation a reader sees or sends (readable or writable). */
  entries: ViewEntry[];
  /** The field whose value names a record in lists and pickers; null when none fits. */
  recordLabel: string | null;
  /** The columns a list shows first. */
  listColumns: string[];
  /** The fields `search` looks in. */
  search: ViewField[];
  /** File fields and attachments: their bytes are uploaded and downloaded beside the JSON API (engine/files), the record shows their metadata. */
  files: ViewFileField[];
  filters: readonly Filter[];
  /** `ordering=` names. */
  orderable: string[];
  /** Names an aggregate may group by; `buckets`: a date or time, grouped by a time bucket (`created:month`). */
  groupable: { name: string; buckets: boolean }[];
  /** Names an aggregate may sum, average and take the least and greatest of. */
  summable: string[];
}

const LABEL_FIELDS = ['title', 'name', 'username', 'label', 'number'];
/** Field types that make a short, useful list column. */
const COLUMN_TYPES = new Set(['state', 'enum', 'boolean', 'date', 'datetime', 'integer', 'decimal', 'string', 'email']);
const DEFAULT_COLUMNS = 6;
/** Field types grouped by unless declared `groupable: false`; the temporal ones by a time bucket. */
const GROUPED_TYPES = new Set(['enum', 'state', 'boolean', 'date', 'datetime']);
const TEMPORAL_TYPES = new Set(['date', 'datetime']);
const SUMMED_TYPES = new Set(['integer', 'decimal']);

/** `assigned_user` → "Assigned user". */
export const inWords = (name: string): string => {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

const textsOf = (en: string, de: string | undefined): Texts => ({ en, de: de ?? en });

function choicesOf(spec: FieldSpec): ViewField['choices'] {
  if (spec.type !== 'enum' && spec.type !== 'state') return undefined;
  const declared: Partial<Record<string, ValueLabel>> = spec.valueLabels ?? {};
  return spec.values.map((value) => {
    const en = declared[value]?.en ?? inWords(value);
    return { value, labels: textsOf(en, declared[value]?.de) };
  });
}

function omitValueLabels<T extends { valueLabels?: unknown }>(spec: T): Omit<T, 'valueLabels'> {
  const copy = { ...spec };
  delete copy.valueLabels;
  return copy;
}

function entriesOf(resource: Resource): ViewEntry[] {
  const entries: ViewEntry[] = resource.fields
    .filter((f) => f.readable || f.writable)
    .map((f) => {
      const { description, label: declared, labelDe, ...rest } = f.spec;
      // value labels are texts too: readers get them as `choices`
      const details = 'valueLabels' in rest ? omitValueLabels(rest) : rest;
      const { nullable, readable, writable } = f;
      const label = declared ?? inWords(f.name);
      const texts = { label, labels: textsOf(label, labelDe), choices: choicesOf(f.spec) };
      const entry: ViewField = { kind: 'field', name: f.name, ...texts, description, writeName: f.name, required: f.spec.required ?? false, nullable, readable, writable, field: f, spec: f.spec, details };
      return withPermission(entry, f.spec);
    });
  const relation = (r: ForeignKeyRef | ManyToManyRef) => ({
    name: r.name,
    label: r.spec.label ?? inWords(r.name),
    labels: textsOf(r.spec.label ?? inWords(r.name), r.spec.labelDe),
    description: r.spec.description,
    writeName: r.writeName,
    readable: true,
    writable: !r.spec.readOnly,
    target: r.target,
  });
  for (const r of resource.foreignKeys) entries.push(withPermission({ ...relation(r), kind: 'fk', relation: r, required: r.required, nullable: !r.required }, r.spec));
  for (const r of resource.manyToMany) entries.push(withPermission({ ...relation(r), kind: 'm2m', relation: r, required: false, nullable: false }, r.spec));
  return entries;
}

/** `entry` with the declared `read` and `write` permissions, where there are any. */
function withPermission<E extends ViewEntry>(entry: E, spec: { read?: string; write?: string }): E {
  if (spec.read === undefined && spec.write === undefined) return entry;
  return { ...entry, permission: { ...(spec.read && { read: spec.read }), ...(spec.write && { write: spec.write }) } };
}

/** The field whose value names a record of `resource` (declared `recordLabel`, else the first of LABEL_FIELDS it serves). */
export function recordLabelOf(resource: Resource): string | null {
  const declared = resource.declaration.recordLabel;
  if (declared !== undefined) return declared;
  return LABEL_FIELDS.find((name) => resource.fields.some((f) => f.name === name && f.readable)) ?? null;
}

function listColumnsOf(resource: Resource, entries: readonly ViewEntry[], recordLabel: string | null): string[] {
  const known = new Set(['id', 'created', 'modified', ...entries.map((e) => e.name)]);
  const declared = resource.declaration.listColumns;
  if (declared) {
    const unknown = declared.find((c) => !known.has(c));
    if (unknown) throw new Error(`Resource "${resource.key}": list column "${unknown}" is neither a field nor a relation.`);
    return [...declared];
  }
  const chosen = ['id', ...(recordLabel ? [recordLabel] : [])];
  for (const e of entries) {
    if (chosen.length >= DEFAULT_COLUMNS) break;
    if (chosen.includes(e.name)) continue;
    if (e.kind === 'fk' || (e.kind === 'field' && COLUMN_TYPES.has(e.spec.type))) chosen.push(e.name);
  }
  return chosen;
}

/** Fields (declared `groupable`, or of a grouped type), foreign keys (unless `groupable: false`), then the record's times. */
function groupableOf(resource: Resource): ResourceView['groupable'] {
  const fields = resource.fields.filter((f) => f.readable && (f.spec.groupable ?? GROUPED_TYPES.has(f.spec.type)));
  return [
    ...fields.map((f) => ({ name: f.name, buckets: TEMPORAL_TYPES.has(f.spec.type) })),
    ...resource.foreignKeys.filter((fk) => fk.spec.groupable !== false).map((fk) => ({ name: fk.name, buckets: false })),
    ...(['created', 'modified'] as const).filter((c) => resource.recordColumns.includes(c)).map((name) => ({ name, buckets: true })),
  ];
}

const summableOf = (resource: Resource): string[] =>
  resource.fields.filter((f) => f.readable && (f.spec.summable ?? SUMMED_TYPES.has(f.spec.type))).map((f) => f.name);

export function resourceView(resource: Resource, filters: readonly Filter[], orderable: ReadonlyMap<string, OrderColumn>): ResourceView {
  const entries = entriesOf(resource);
  const recordLabel = recordLabelOf(resource);
  return {
    resource,
    entries,
    recordLabel,
    listColumns: listColumnsOf(resource, entries, recordLabel),
    search: entries.filter((e): e is ViewField => e.kind === 'field' && e.spec.search === true && e.field.column !== null),
    files: entries.filter((e): e is ViewFileField => e.kind === 'field' && (e.spec.type === 'file' || e.spec.type === 'attachments')),
    filters,
    orderable: [...orderable.keys()],
    groupable: groupableOf(resource),
    summable: summableOf(resource),
  };
}

const maskedViews = new WeakMap<FieldMask, ResourceView>();

/**
 * `view` as a caller with `mask` (access/field-permissions.ts) sees it: what the mask hides left out
 * everywhere, what it may not set not writable. Built once per mask.
 */
export function viewFor(view: ResourceView, mask: FieldMask): ResourceView {
  if (mask.hidden.size === 0 && mask.unwritable.size === 0) return view;
  let masked = maskedViews.get(mask);
  if (!masked) {
    const shown = (name: string) => !mask.hidden.has(name);
    masked = {
      ...view,
      entries: view.entries.filter((e) => shown(e.name)).map((e) => (mask.unwritable.has(e.writeName) ? { ...e, writable: false } : e)),
      listColumns: view.listColumns.filter(shown),
      search: view.search.filter((e) => shown(e.name)),
      files: view.files.filter((e) => shown(e.name)),
      filters: view.filters.filter((f) => shown(f.on.key)),
      orderable: view.orderable.filter(shown),
      groupable: view.groupable.filter((g) => shown(g.name)),
      summable: view.summable.filter(shown),
    };
    maskedViews.set(mask, masked);
  }
  return masked;
}
