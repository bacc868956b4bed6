/**
 * Reporting in the document, from the resource view: each resource's `{path}/aggregate` with the
 * names it may group by and sum, and the list's CSV and XLSX answers (`format`, `bom`, `escape_formulas`).
 */
import type { ResourceService } from '../crud/service.js';
import { permissionOf } from '../registry/resource.js';
import { AGGREGATE_SUFFIX } from '../reporting/routes.js';
import { BUCKETS, NOT_AGGREGATED } from '../reporting/aggregate-plan.js';
import { EXPORT_TYPES, FORMATS } from '../reporting/export.js';
import { listParameters } from './list-parameters.js';
import { json, responsesOf } from './shared.js';
import type { Parameter, Paths, Ref, Schema } from './types.js';

const names = (values: string[]): Schema => ({ type: 'array', items: { type: 'string', enum: values } });
const byName = (description: string, values: Schema): Schema => ({ type: 'object', description, additionalProperties: values });

const GROUP: Schema = {
  type: 'object',
  description: 'One group: its values, the number of its records, and the measures asked for, each by field name.',
  properties: {
    group: byName('The values the group shares, by `group_by` term (`state`, `created:month`); a time bucket as the date it starts on (weeks start on Monday).', {}),
    count: { type: 'integer', minimum: 0, description: 'How many records the group holds (left out for `count=false`; 0 only for the one group of no records, without `group_by`).', example: 3 },
    sum: byName('Sums, as exact decimal texts (null when every value is empty).', { type: 'string', format: 'decimal', nullable: true }),
    avg: byName('Averages, as exact decimal texts (null when every value is empty).', { type: 'string', format: 'decimal', nullable: true }),
    min: byName('Least values, as the field serves them.', {}),
    max: byName('Greatest values, as the field serves them.', {}),
  },
  required: ['group'],
};

/** `format`, `bom` and `escape_formulas` of a list, and its answer's other media types. */
export const exportParameters: Parameter[] = [
  {
    name: 'format',
    in: 'query',
    description: `\`csv\` (RFC 4180, UTF-8) or \`xlsx\`: the same list as a file, one row per record under the fields' labels, a foreign key as its id and its record's label, links as \`;\`-joined ids; fields the caller may not read are no columns. Without it, an \`Accept\` of \`${EXPORT_TYPES.csv}\` or \`${EXPORT_TYPES.xlsx}\` asks for one.`,
    schema: { type: 'string', enum: [...FORMATS] },
  },
  { name: 'bom', in: 'query', description: '`true`: the CSV starts with a byte order mark, so Excel reads it as UTF-8.', schema: { type: 'boolean' } },
  {
    name: 'escape_formulas',
    in: 'query',
    description: "`true`: a CSV text cell a spreadsheet would read as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return, after any `'`) gets a `'` before it; a CSV import takes it off again.",
    schema: { type: 'boolean' },
  },
];

export const exportContent = {
  [EXPORT_TYPES.csv]: { schema: { type: 'string', description: 'The records as CSV, a header row first.' } },
  [EXPORT_TYPES.xlsx]: { schema: { type: 'string', format: 'binary', description: 'The records as a workbook of one sheet, a header row first.' } },
};

/** `{path}/aggregate` of one resource, as the caller with every field permission sees it. */
export function aggregatePaths(service: ResourceService): Paths {
  const { resource, groupable, summable } = service.view;
  const permission = permissionOf(resource, 'view');
  const filters = listParameters(service).filter((p): p is Parameter => !('$ref' in p) && !(NOT_AGGREGATED as readonly string[]).includes(p.name));
  const terms = groupable.flatMap((g) => (g.buckets ? [g.name, ...BUCKETS.map((b) => `${g.name}:${b}`)] : [g.name]));
  const parameters: (Parameter | Ref)[] = [...filters];
  if (terms.length) {
    parameters.push({
      name: 'group_by',
      in: 'query',
      description: 'Fields to group by, comma-separated; a date or time by a time bucket in the server\'s TZ (`created:month`: day, week, month, quarter or year; a bare one by day). Without it, one group of every record.',
      style: 'form',
      explode: false,
      schema: names(terms),
    });
  }
  parameters.push({ name: 'count', in: 'query', description: '`false`: leave out the number of records of each group (counted by default).', schema: { type: 'boolean' } });
  const measures = { sum: 'Fields to sum', avg: 'Fields to average', min: 'Fields to take the least value of', max: 'Fields to take the greatest value of' };
  if (summable.length) {
    for (const [name, what] of Object.entries(measures)) parameters.push({ name, in: 'query', description: `${what}, comma-separated.`, style: 'form', explode: false, schema: names(summable) });
  }
  return {
    [`${resource.path}${AGGREGATE_SUFFIX}`]: {
      get: {
        operationId: `${resource.operationPrefix}_aggregate`,
        summary: `${resource.title}: aggregate`,
        description: `Counts and measures of the records the list would serve the caller (its filters, search and visibility apply), by group, ordered by the groups' values. At most AGGREGATE_MAX_GROUPS groups (10,000 by default): more answer 400 under \`group_by\`, as does a name that cannot be grouped by or measured (or that the caller's field permissions hide). ${permission === undefined ? resource.engineTable!.permissionsOfRecords : `Requires the permission \`${permission}\`.`}`,
        tags: [resource.module],
        parameters,
        responses: responsesOf({ 200: { description: 'The groups.', content: json({ type: 'array', items: GROUP }) } }, ['ValidationFailed', 'NotAuthenticated', 'PermissionDenied']),
        ...(permission === undefined ? {} : { 'x-required-permission': permission }),
      },
    },
  };
}
