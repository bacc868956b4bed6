/**
 * The import routes of every resource that takes creates or updates:
 * - `POST {resource}/import?mode=create|update|upsert&key=id|remote_key&dry_run=true`: a CSV or XLSX
 *   body (or a multipart form's file). Permissions first: create needs the add permission, update
 *   the change permission, upsert both. A file up to IMPORT_SYNC_MAX_BYTES is imported at once
 *   (200 with what was done, 400 listing every row's errors); a larger one is kept and imported in
 *   the background (202, `Location: /api/jobs/imports/{id}`).
 * - `GET {resource}/import/template?format=xlsx|csv`: the template (template.ts).
 * - `GET /api/jobs/imports/{id}`: a background import's progress and outcome, for the user who sent it.
 */
import { NOT_A_BOOLEAN } from '../crud/validator.js';
import type { Context } from 'koa';
import type { Principal } from '../auth/users.js';
import { fieldMask } from '../access/field-permissions.js';
import { viewFor } from '../describe/view.js';
import type { ResourceService } from '../crud/service.js';
import { emptyMap, permissionDenied, ValidationError, type FieldErrors } from '../errors.js';
import { idOf, mayPerform, methods, queryOf } from '../http/resource-routes.js';
import type { RouteTable } from '../http/route-table.js';
import type { Action } from '../registry/resource.js';
import { KEYS, type ImportKey } from './columns.js';
import { Importer, IMPORT_MODES, type ImportMode, type ImportOptions } from './importer.js';
import { importJobPath, type ImportJobs } from './import-jobs.js';
import { CSV_TYPE, sheetRows, XLSX_TYPE, type SheetFormat } from './sheets.js';
import { templateOf } from './template.js';
import { readUpload } from './upload.js';

export interface ImportSettings {
  /** IMPORT_SYNC_MAX_BYTES: larger files are imported in the background. */
  syncMaxBytes: number;
  /** IMPORT_MAX_BYTES: the largest file an import takes (413 beyond). */
  maxBytes: number;
}

export const DEFAULT_IMPORTS: ImportSettings = { syncMaxBytes: 1024 * 1024, maxBytes: 64 * 1024 * 1024 };

/** The actions a mode writes with. */
export const MODE_ACTIONS: Record<ImportMode, Action[]> = { create: ['add'], update: ['change'], upsert: ['add', 'change'] };

const BOOLEAN_WORDS = new Map([
  ['true', true],
  ['1', true],
  ['false', false],
  ['0', false],
]);

/** `?mode`, `?key` and `?dry_run`, each refused with the choices it takes. */
function optionsOf(query: Record<string, string>, offered: readonly Action[]): ImportOptions {
  const errors: FieldErrors = emptyMap();
  const choice = <T extends string>(name: string, given: string | undefined, choices: readonly T[], fallback: T): T => {
    if (given === undefined) return fallback;
    if (choices.includes(given as T)) return given as T;
    errors[name] = [`"${given}" is not a valid choice (${choices.join(', ')}).`];
    return fallback;
  };
  const mode = choice('mode', query.mode, IMPORT_MODES, 'create');
  const key = choice<ImportKey>('key', query.key, KEYS, 'id');
  const dryRun = query.dry_run === undefined ? false : BOOLEAN_WORDS.get(query.dry_run.toLowerCase());
  if (dryRun === undefined) errors.dry_run = [NOT_A_BOOLEAN];
  if (!errors.mode && MODE_ACTIONS[mode].some((a) => !offered.includes(a))) errors.mode = [`This resource does not take ${mode}s.`];
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return { mode, key, dryRun: dryRun ?? false };
}

const TEMPLATE_TYPES: Record<SheetFormat, string> = { csv: `${CSV_TYPE}; charset=utf-8`, xlsx: XLSX_TYPE };

export function mountImports(routes: RouteTable, services: Iterable<ResourceService>, jobs: ImportJobs, settings: ImportSettings): void {
  for (const service of services) {
    const { resource } = service;
    if (!resource.actions.includes('add') && !resource.actions.includes('change')) continue;
    const importer = new Importer(service);
    const may = (user: Principal, actions: readonly Action[]) => actions.every((a) => mayPerform(user, resource.permissions[a]));
    routes.add(
      `${resource.path}/import`,
      methods({
        POST: async (ctx, user) => {
          const options = optionsOf(queryOf(ctx), resource.actions);
          if (!may(user, MODE_ACTIONS[options.mode])) throw permissionDenied();
          const upload = await readUpload(ctx, settings.maxBytes);
          if (upload.bytes.length > settings.syncMaxBytes) {
            const job = await jobs.enqueue(user, service, options, upload);
            ctx.status = 202;
            ctx.set('Location', importJobPath(job.id as number));
            ctx.body = job;
            return;
          }
          ctx.body = await importer.run(user, options, sheetRows(upload.bytes, upload.format));
        },
      }),
    );
    routes.add(
      `${resource.path}/import/template`,
      methods({
        GET: async (ctx: Context, user) => {
          if (!resource.actions.some((a) => (a === 'add' || a === 'change') && may(user, [a]))) throw permissionDenied();
          const format = (queryOf(ctx).format ?? 'xlsx') as SheetFormat;
          if (!(format in TEMPLATE_TYPES)) throw ValidationError.field('format', `"${format}" is not a valid choice (xlsx, csv).`);
          const entries = viewFor(service.view, fieldMask(resource, user)).entries;
          ctx.set('Content-Disposition', `attachment; filename="${resource.module}-${resource.name}-import.${format}"`);
          ctx.type = TEMPLATE_TYPES[format];
          ctx.body = await templateOf(resource.title, entries, format);
        },
      }),
    );
  }
  routes.add(
    '/api/jobs/imports/:id',
    methods({
      GET: async (ctx, user, id) => {
        ctx.body = await jobs.describe(user, idOf(id));
      },
    }),
  );
}
