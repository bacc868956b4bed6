/** What a resource file imports: the declaration helpers, the field presets and their types. */
export { field } from './fields.js';
export type { FieldSpec, FieldType, Lookup, ValueLabel } from './fields.js';
export { archivedField, catalogueFields, descriptionField, guardedFields, positionField, titleField, trafficLightField, visibilityField } from './presets.js';
export type { FieldPermissions } from './presets.js';
export { fk, m2m } from './relations.js';
export { COUNTRY_CODES } from './countries.js';
export type { RelationSpec, ForeignKey, ManyToMany, DeleteRule } from './relations.js';
export { defineResource } from './resource.js';
export type { DeclaredResource, ResourceDeclaration, AccessRule, ObjectAccess, RecordRule } from './resource.js';
export type { ResourceHooks, HookContext, AfterWriteContext, RecordReader, ServedRecord, WriteOperation } from './hooks.js';
export { defineModule } from './module.js';
export type { ModuleDeclaration } from './module.js';
export { defineBatch } from './batch.js';
export type { BatchDeclaration, BatchOperation } from './batch.js';
export type { ScheduleDeclaration, ScheduleContext, ScheduledWrites } from './schedules.js';
export { demoRows } from './demo.js';
export type { DemoRow, DemoRows } from './demo.js';
