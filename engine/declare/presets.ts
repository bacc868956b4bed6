/**
 * Presets: field shapes many resources share, so a declaration states only what is its own (the
 * description). Each returns the spec the `field` helper would, so the declared schema is the same
 * either way; a resource needing another shape writes the `field` call itself.
 */
import { field, type BooleanField, type EnumField, type FieldSpec, type IntegerField, type StringField, type TextField } from './fields.js';

/** The name a record is listed, searched and filtered by: required, at most 255 characters. */
export const titleField = (description: string): StringField =>
  field.string({ maxLength: 255, required: true, filter: true, search: true, labelDe: 'Titel', description });

/** Optional free text about the record (usually markdown), part of `?search=`. */
export const descriptionField = (description: string): TextField => field.text({ allowBlank: true, search: true, labelDe: 'Beschreibung', description });

/** Archived records are kept but set aside; records start unarchived. */
export const archivedField = (description: string): BooleanField => field.boolean({ default: false, labelDe: 'Archiviert', description });

/**
 * A place in a hand-ordered list, 0 or more, ascending; 0 unless given. Name the field in the
 * resource's `ordering` for lists to come in that order.
 */
export const positionField = (description: string): IntegerField => field.integer({ minimum: 0, default: 0, labelDe: 'Position', description });

/**
 * Who sees the record: `normal` everyone with the view permission, `protected` only those the
 * resource's `access` rule names (say whom in the description). The rule reads the values.
 */
export const visibilityField = (description: string): EnumField<'normal' | 'protected'> =>
  field.enum({ values: ['normal', 'protected'], default: 'normal', labelDe: 'Sichtbarkeit', valueLabels: { protected: { de: 'Geschützt' } }, description });

/** A traffic-light rating: green, orange or red; none until rated. */
export const trafficLightField = (description: string): EnumField<'green' | 'orange' | 'red'> =>
  field.enum({ values: ['green', 'orange', 'red'], labelDe: 'Ampel', valueLabels: { green: { de: 'Grün' }, red: { de: 'Rot' } }, description });

/** The fields of a lookup resource (types, categories, statuses …): `title`, `description`, `archived`. */
export const catalogueFields = (descriptions: { title: string; description: string; archived: string }) => ({
  title: titleField(descriptions.title),
  description: descriptionField(descriptions.description),
  archived: archivedField(descriptions.archived),
});

/** The `read` and `write` permissions of a group of fields (declare/fields.ts). */
export interface FieldPermissions {
  read: string;
  write: string;
}

/**
 * A group of fields behind the same permissions, e.g. an employee's private data:
 * `...guardedFields({ read: 'organisation.view_private_data', write: 'organisation.change_private_data' }, { birth_date: field.date(…) })`.
 */
export const guardedFields = <const F extends Record<string, FieldSpec>>(permissions: FieldPermissions, fields: F): F =>
  Object.fromEntries(Object.entries(fields).map(([name, spec]) => [name, { ...spec, ...permissions }])) as F;
