/**
 * The import operations of every resource that takes creates or updates (engine/exchange):
 * `POST {resource}/import`, `GET {resource}/import/template`, and `GET /api/jobs/imports/{id}`,
 * a background import's progress and outcome. Columns and choices come from the resource's
 * compiled view, as its request schema does.
 */
import type { ResourceService } from '../crud/service.js';
import { KEYS } from '../exchange/columns.js';
import { IMPORT_MODES } from '../exchange/importer.js';
import { CSV_TYPE, XLSX_TYPE } from '../exchange/sheets.js';
import { MODE_ACTIONS } from '../exchange/import-routes.js';
import { templateColumns } from '../exchange/template.js';
import { json, responsesOf } from './shared.js';
import { ref, type PathsPart, type Schema } from './types.js';

const binary = { type: 'string', format: 'binary' };
const detail = (description: string) => ({ description, content: json(ref('schemas', 'Detail')) });

const SCHEMAS: Record<string, Schema> = {
  ImportResult: {
    type: 'object',
    description: 'What an import did (a dry run: what it would do).',
    properties: {
      rows: { type: 'integer', minimum: 0, description: 'Data rows read (blank rows are skipped).' },
      created: { type: 'integer', minimum: 0, description: 'Records created.' },
      updated: { type: 'integer', minimum: 0, description: 'Records updated.' },
      dry_run: { type: 'boolean', description: 'Whether this was a dry run: nothing was kept.' },
    },
    required: ['rows', 'created', 'updated', 'dry_run'],
  },
  ImportRowErrors: {
    type: 'object',
    description: 'Every error of every row; nothing was written.',
    properties: {
      detail: { type: 'string', description: 'How many rows cannot be imported.' },
      errors: {
        type: 'array',
        description: 'Every error, row by row.',
        items: {
          type: 'object',
          properties: {
            row: { type: 'integer', minimum: 1, description: 'The row as a spreadsheet numbers it: the header is row 1.' },
            field: { type: 'string', nullable: true, description: "The column's write name (a header problem: the header as sent); null: the row as a whole." },
            messages: { type: 'array', items: { type: 'string' }, description: 'The messages the API gives for the same body.' },
          },
          required: ['row', 'field', 'messages'],
        },
      },
    },
    required: ['detail', 'errors'],
  },
  ImportJob: {
    type: 'object',
    description: 'A background import: its progress while it runs, its outcome after.',
    properties: {
      id: { type: 'integer', description: 'Id of the job.' },
      url: { type: 'string', description: 'Where the job is read.' },
      resource: { type: 'string', description: 'The resource imported into (`issue/issue`).' },
      mode: { type: 'string', enum: [...IMPORT_MODES], description: 'The import mode.' },
      key: { type: 'string', enum: [...KEYS], description: 'What names existing records.' },
      dry_run: { type: 'boolean', description: 'Whether nothing is kept.' },
      status: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed'], description: 'queued, running, succeeded (see result) or failed (see errors, detail).' },
      progress: {
        type: 'object',
        description: 'Rows done so far, of the rows in the file (null until counted).',
        properties: { done: { type: 'integer', description: 'Rows done.' }, total: { type: 'integer', nullable: true, description: 'Data rows in the file.' } },
      },
      result: { type: 'object', nullable: true, description: 'What a succeeded import did: rows, created, updated, dry_run (as ImportResult).' },
      errors: { type: 'array', nullable: true, items: { type: 'object' }, description: 'A failed import: every row error, as a 400 of an import lists them.' },
      detail: { type: 'string', nullable: true, description: 'Why a failed import failed.' },
      created: { type: 'string', format: 'date-time', description: 'When it was sent.' },
      started: { type: 'string', format: 'date-time', nullable: true, description: 'When its (last) run began.' },
      finished: { type: 'string', format: 'date-time', nullable: true, description: 'When it ended.' },
    },
  },
};

export function importPaths(services: Iterable<ResourceService>): PathsPart {
  const part: PathsPart = { paths: {}, schemas: { ...SCHEMAS } };
  for (const service of services) {
    const { resource } = service;
    if (resource.engineTable || (!resource.actions.includes('add') && !resource.actions.includes('change'))) continue;
    const columns = templateColumns(service.view.entries)
      .map((c) => `\`${c.header}\``)
      .join(', ');
    const permissions = IMPORT_MODES.map((m) => `${m}: ${MODE_ACTIONS[m].map((a) => `\`${resource.permissions[a]}\``).join(' and ')}`).join('; ');
    part.paths[`${resource.path}/import`] = {
      post: {
        operationId: `${resource.operationPrefix}_import`,
        summary: `${resource.title}: import a CSV or XLSX sheet`,
        description:
          `Creates or updates ${resource.title} records from a sheet whose first row names the columns: write names or labels (${columns}; \`id\` names a record). ` +
          'Each row goes through the same checks as the API; all or nothing in one transaction, every error listed. Files over IMPORT_SYNC_MAX_BYTES run in the background (202). ' +
          `Requires, by mode: ${permissions}.`,
        tags: [resource.module],
        parameters: [
          { name: 'mode', in: 'query', description: 'create (default), update (rows name records by `key`) or upsert (update those found, create the rest).', schema: { type: 'string', enum: [...IMPORT_MODES] } },
          { name: 'key', in: 'query', description: 'What names an existing record: `id` (default) or `remote_key`.', schema: { type: 'string', enum: [...KEYS] } },
          { name: 'dry_run', in: 'query', description: 'Validate every row, write nothing.', schema: { type: 'boolean' } },
        ],
        requestBody: {
          required: true,
          content: { [CSV_TYPE]: { schema: { type: 'string' } }, [XLSX_TYPE]: { schema: binary }, 'multipart/form-data': { schema: { type: 'object', properties: { file: { ...binary, description: 'The CSV or XLSX file.' } }, required: ['file'] } } },
        },
        responses: {
          ...responsesOf({ 200: { description: 'Imported (or, for a dry run, valid).', content: json(ref('schemas', 'ImportResult')) } }, ['NotAuthenticated', 'PermissionDenied']),
          202: { description: 'Queued as a background import; `Location` is its job.', headers: { Location: { description: 'The job: `/api/jobs/imports/{id}`.', schema: { type: 'string' } } }, content: json(ref('schemas', 'ImportJob')) },
          400: { description: 'Invalid rows or columns (every error listed), or invalid options (`mode`, `key`, `dry_run` → messages).', content: json({ oneOf: [ref('schemas', 'ImportRowErrors'), ref('schemas', 'ValidationError'), ref('schemas', 'Detail')] }) },
          413: detail('The file is larger than IMPORT_MAX_BYTES.'),
          415: detail('The body is neither CSV, XLSX nor a multipart form with such a file.'),
        },
        'x-required-permission': resource.permissions[resource.actions.includes('add') ? 'add' : 'change'],
      },
    };
    part.paths[`${resource.path}/import/template`] = {
      get: {
        operationId: `${resource.operationPrefix}_import_template`,
        summary: `${resource.title}: the import template`,
        description: 'A sheet with one column per field the caller may set, required ones marked ` *`; the XLSX one notes each label and offers choices as drop-down lists. Requires the add or the change permission.',
        tags: [resource.module],
        parameters: [{ name: 'format', in: 'query', description: 'xlsx (default) or csv.', schema: { type: 'string', enum: ['xlsx', 'csv'] } }],
        responses: {
          ...responsesOf({ 200: { description: 'The template.', content: { [XLSX_TYPE]: { schema: binary }, [CSV_TYPE]: { schema: { type: 'string' } } } } }, ['ValidationFailed', 'NotAuthenticated', 'PermissionDenied']),
        },
      },
    };
  }
  part.paths['/api/jobs/imports/{id}'] = {
    get: {
      operationId: 'import_job_retrieve',
      summary: 'A background import',
      description: 'Its progress while it runs and its outcome after; only the user who sent it (and superusers) see it.',
      tags: ['job'],
      parameters: [ref('parameters', 'Id')],
      responses: responsesOf({ 200: { description: 'The job.', content: json(ref('schemas', 'ImportJob')) } }, ['NotAuthenticated', 'NotFound']),
    },
  };
  return part;
}
