/**
 * `/api/trash`: the records deleted from resources declared `trash: true` (trash-trigger.ts), an
 * engine table (declare/engine-table.ts) with no permission names of its own. Reading an entry
 * needs the record's view permission and its view rule, judged on the record as it was deleted;
 * purging it (DELETE), its delete permission and its change rule too (trash.ts, as a restore).
 * An entry serves the record's served columns as deleted and its own relations' links by their
 * write names, whatever else the stored row and links hold.
 */
import type { Principal } from '../auth/users.js';
import { defineEngineTable } from '../declare/engine-table.js';
import { field } from '../declare/fields.js';
import { INT_MAX } from '../fields/values.js';
import { RECORD_FIELDS, type Resource } from '../registry/resource.js';
import { literal } from '../storage/declared-triggers.js';
import { entryFor, TRASH_PATH, TRASH_RULES, visibleEntries } from './trash.js';
import { trashed } from './trash-trigger.js';

const id = (description: string) => field.integer({ minimum: 1, maximum: INT_MAX, nullable: false, lookups: ['exact'], description });

/** Per resource, `json` of it as an SQL expression; `{}` for an entry of a resource that has no trash now. */
const byResource = (resources: readonly Resource[], e: string, json: (r: Resource) => string): string =>
  resources.length ? `case ${e}.resource ${resources.map((r) => `when ${literal(r.key)} then ${json(r)}`).join(' ')} else '{}'::jsonb end` : `'{}'::jsonb`;

/** The stored row's columns the record's resource serves. */
const servedColumns = (r: Resource): string[] => [...RECORD_FIELDS, ...r.fields.filter((f) => f.readable && f.column).map((f) => f.column!), ...r.foreignKeys.map((fk) => fk.column)];

/** The record's values (row `e`) as its resource serves them. */
const values = (resources: readonly Resource[], e: string) =>
  byResource(resources, e, (r) => `(select coalesce(jsonb_object_agg(key, value), '{}') from jsonb_each(${e}."row") where key in (${servedColumns(r).map(literal).join(', ')}))`);

/** The record's own relations' links (row `e`), each under its write name; those of others' relations to it are for the restore. */
const links = (resources: readonly Resource[], e: string) =>
  byResource(resources, e, (r) => {
    const own = r.manyToMany.map(
      (m) => `${literal(m.writeName)}, coalesce((select l -> 'ids' from jsonb_array_elements(${e}.links) l where l ->> 'link' = ${literal(m.spec.table)} and l ->> 'column' = ${literal(m.spec.sourceColumn)}), '[]')`,
    );
    return `jsonb_build_object(${own.join(', ')})`;
  });

/** `build` for each alias, built once. */
function once(build: (alias: string) => string): (user: Principal, alias: string) => string {
  const built = new Map<string, string>();
  return (_user, alias) => built.get(alias) ?? built.set(alias, build(alias)).get(alias)!;
}

/** The trash of the `modules`' resources declared with one. */
export const trashEntries = (modules: readonly Resource[]) => {
  const resources = trashed(modules);
  return defineEngineTable({
    module: 'trash',
    name: 'entry',
    path: TRASH_PATH,
    table: 'trash',
    title: 'Trash entry',
    description: 'A deleted record of a resource declared with a trash, until restored (`POST /api/trash/{id}/restore`) or purged; newest first.',
    schemaName: 'TrashEntry',
    fields: {
      resource: field.string({ maxLength: 100, nullable: false, lookups: ['exact'], description: 'The resource key, e.g. `issue/issue`.' }),
      record_id: id('Id of the deleted record; a restore gives it back this id.'),
      deleted_at: field.datetime({ nullable: false, lookups: ['gte'], description: 'When it was deleted (UTC); purged TRASH_RETENTION_DAYS later.' }),
      deleted_by: { ...id('The user who deleted it; null outside a request.'), nullable: true },
      request_id: field.string({ maxLength: 128, description: 'The `X-Request-Id` of the deleting request.' }),
      values: field.json({ schema: { type: 'object', additionalProperties: true }, nullable: false, description: 'The served columns of the record as it was deleted.' }),
      links: field.json({
        schema: { type: 'object', additionalProperties: { type: 'array', items: { type: 'integer' } } },
        nullable: false,
        description: 'Its many-to-many links by write name (`<name>_ids`).',
      }),
    },
    columns: { values: 'row' },
    params: { deleted_at_from: 'deleted_after' },
    ordering: ['-id'],
    page: { size: 100, max: 1000 },
    permissionsOfRecords: TRASH_RULES,
    visible: (user, alias) => visibleEntries(resources, user, alias),
    servedAs: { values: once((alias) => values(resources, alias)), links: once((alias) => links(resources, alias)) },
    writes: { remove: async (db, user, entry) => (await entryFor(db, user, entry, resources), (await db('trash').where({ id: entry }).delete()) > 0) },
  });
};
