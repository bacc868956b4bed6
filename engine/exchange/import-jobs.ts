/**
 * Imports too large to answer at once run in the background: the upload is kept in a row of
 * `import_jobs` (migrations/0380), which every instance with JOBS on polls. An instance runs a job
 * in one transaction holding the job's advisory lock (transaction-scoped): no other instance can
 * take it meanwhile, and when the instance dies its connection closes, the lock and the import's
 * writes go with it, and the next poll anywhere runs the job from the start. The outcome is written
 * in the same transaction as the records, so a job that succeeded ran once.
 *
 * While it runs, its progress is written beside it on another connection (not on the embedded
 * PGlite, which has one: there the job shows its outcome only). pg-boss (engine/jobs) is not used:
 * a job of its own that an instance took is only taken up again after its expiry (15 minutes by
 * default, and an import may run longer than a short one), and it keeps no progress.
 */
import type { Knex } from 'knex';
import { loadPrincipal, type Principal } from '../auth/users.js';
import type { ResourceService } from '../crud/service.js';
import { ApiError, notFound, RowsRefused } from '../errors.js';
import type { Logger } from '../log.js';
import type { ImportKey } from './columns.js';
import { Importer, type ImportOptions } from './importer.js';
import { sheetRows, type SheetFormat } from './sheets.js';
import type { Upload } from './upload.js';

const TABLE = 'import_jobs';
/** The advisory locks' first key: import jobs' own space. */
const LOCK_SPACE = 27003;
/** A job whose run failed this often without an answer (a bug, a lost database) is given up. */
const MAX_ATTEMPTS = 3;

export const importJobPath = (id: number): string => `/api/jobs/imports/${id}`;

/** Finished imports are served at their URL this long, then removed (the engine's `import_jobs` chore). */
export const IMPORT_JOBS_KEPT_DAYS = 30;

/** Removes the imports that finished more than `days` days ago; answers how many. */
export async function purgeFinishedImports(db: Knex, days = IMPORT_JOBS_KEPT_DAYS): Promise<number> {
  return db(TABLE).whereIn('status', ['succeeded', 'failed']).whereRaw(`finished_at < now() - ? * interval '1 day'`, [days]).delete();
}

interface JobRow {
  id: number;
  resource: string;
  user_id: number;
  mode: ImportOptions['mode'];
  key: ImportKey;
  dry_run: boolean;
  format: SheetFormat;
  file: Buffer | null;
  status: string;
  attempts: number;
  rows_total: number | null;
  rows_done: number;
  result: unknown;
  errors: unknown;
  detail: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

/** A job as `/api/jobs/imports/{id}` serves it. */
function served(job: JobRow): Record<string, unknown> {
  return {
    id: job.id,
    url: importJobPath(job.id),
    resource: job.resource,
    mode: job.mode,
    key: job.key,
    dry_run: job.dry_run,
    status: job.status,
    progress: { done: job.rows_done, total: job.rows_total },
    result: job.result,
    errors: job.errors,
    detail: job.detail,
    created: iso(job.created_at),
    started: iso(job.started_at),
    finished: iso(job.finished_at),
  };
}

const COLUMNS = ['id', 'resource', 'user_id', 'mode', 'key', 'dry_run', 'format', 'status', 'attempts', 'rows_total', 'rows_done', 'result', 'errors', 'detail', 'created_at', 'started_at', 'finished_at'];

/** The service is stopping: the running import gives up, to be run again. */
class Abandoned extends Error {}

export class ImportJobs {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  /** The embedded PGlite has one connection, which the running job holds. */
  private readonly oneConnection: boolean;

  constructor(
    private readonly db: Knex,
    private readonly services: ReadonlyMap<string, ResourceService>,
    private readonly log: Logger,
  ) {
    this.oneConnection = (db.client as { pglite?: unknown }).pglite !== undefined;
  }

  /** Keeps the upload and queues its import; the job as served. */
  async enqueue(user: Principal, service: ResourceService, options: ImportOptions, upload: Upload): Promise<Record<string, unknown>> {
    const [job] = (await this.db(TABLE)
      .insert({ resource: service.resource.key, user_id: user.id, mode: options.mode, key: options.key, dry_run: options.dryRun, format: upload.format, file: upload.bytes })
      .returning(COLUMNS)) as JobRow[];
    this.poll();
    return served(job!);
  }

  /** The job, if `user` sent it (or is a superuser); 404 otherwise. */
  async describe(user: Principal, id: number): Promise<Record<string, unknown>> {
    const job = (await this.db(TABLE).where({ id }).first(COLUMNS)) as JobRow | undefined;
    if (!job || (!user.isSuperuser && job.user_id !== user.id)) throw notFound();
    return served(job);
  }

  /** Polls for jobs every `pollSeconds` (JOBS on). */
  start(pollSeconds: number): void {
    this.timer = setInterval(() => this.poll(), pollSeconds * 1000);
    this.poll();
  }

  /**
   * Stops polling; the job under way stops at its next chunk, rolled back and left queued (another
   * instance, or this one started again, runs it from the start), so a shutdown never waits for a
   * whole import.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** Runs the jobs waiting, one after another, unless a run is under way. */
  private poll(): void {
    if (!this.timer || this.running || this.stopping) return;
    this.running = (async () => {
      try {
        while (!this.stopping && (await this.runOne()));
      } catch (err) {
        if (err instanceof Abandoned) this.log.info('import job stopped by the shutdown; it runs again from the start');
        else this.log.warn({ err }, 'import job failed; it is tried again');
      } finally {
        this.running = undefined;
      }
    })();
  }

  /** Runs the first waiting job no other instance holds; false when there is none. */
  private async runOne(): Promise<boolean> {
    const waiting = (await this.db(TABLE).whereIn('status', ['queued', 'running']).orderBy('id').limit(20).pluck('id')) as number[];
    for (const id of waiting) {
      const ran = await this.db.transaction(async (trx) => {
        const { rows } = (await trx.raw('select pg_try_advisory_xact_lock(?, ?) as got', [LOCK_SPACE, id])) as { rows: { got: boolean }[] };
        if (!rows[0]!.got) return false;
        // read after the lock: another instance may have finished it since the list was read
        const job = (await trx(TABLE).where({ id }).whereIn('status', ['queued', 'running']).first()) as JobRow | undefined;
        if (!job) return false;
        await this.execute(trx, job);
        return true;
      });
      if (ran) return true;
    }
    return false;
  }

  /** Writes beside the running job, on another connection, so pollers see it at once. */
  private async note(id: number, values: Record<string, unknown>): Promise<void> {
    if (!this.oneConnection) await this.db(TABLE).where({ id }).update(values);
  }

  private async execute(trx: Knex.Transaction, job: JobRow): Promise<void> {
    const finish = (values: Record<string, unknown>) => trx(TABLE).where({ id: job.id }).update({ ...values, file: null, finished_at: trx.fn.now() });
    const service = this.services.get(job.resource);
    const user = await loadPrincipal(trx, (qb) => void qb.where('u.id', job.user_id));
    if (!service || !user || !job.file) return void (await finish({ status: 'failed', detail: 'The resource or the user who sent the import no longer exists.' }));
    if (job.attempts >= MAX_ATTEMPTS) return void (await finish({ status: 'failed', detail: `The import failed ${job.attempts} times without an answer; see the service's log.` }));
    await this.note(job.id, { status: 'running', started_at: this.db.fn.now(), attempts: job.attempts + 1, rows_done: 0, rows_total: await this.count(job) });
    const options: ImportOptions = { mode: job.mode, key: job.key, dryRun: job.dry_run };
    try {
      // its writes are recorded as the user's, in the import's name
      const actor: Principal = { ...user, requestId: `import-${job.id}`, transaction: trx };
      const result = await new Importer(service).run(actor, options, sheetRows(job.file!, job.format), async (done) => {
        if (this.stopping) throw new Abandoned();
        await this.note(job.id, { rows_done: done });
      });
      await finish({ status: 'succeeded', result, rows_done: result.rows, attempts: job.attempts + 1 });
    } catch (err) {
      // not counted as an attempt: it was not allowed to end
      if (err instanceof Abandoned) await this.note(job.id, { status: 'queued', attempts: job.attempts, rows_done: 0 });
      if (!(err instanceof ApiError)) throw err;
      const body = err.body() as { detail?: string };
      await finish({ status: 'failed', attempts: job.attempts + 1, errors: err instanceof RowsRefused ? JSON.stringify(err.errors) : null, detail: body.detail ?? JSON.stringify(body) });
    }
  }

  /** The file's data rows (the header not counted), for the progress; none when it cannot be read (the run says why). */
  private async count(job: JobRow): Promise<number | null> {
    let rows = -1;
    try {
      const sheet = sheetRows(job.file!, job.format);
      while (!(await sheet.next()).done) rows++;
    } catch {
      return null;
    }
    return Math.max(rows, 0);
  }
}
