/**
 * PostgreSQL failures mapped to API errors in one place, by SQLSTATE class (pg and PGlite both
 * carry `code` and `detail`). Anything unrecognised stays a plain error and becomes a logged 500.
 * No answer carries the driver's message (Knex puts the SQL into it): the mapped error keeps the
 * original as its `cause`, which the error renderer logs with the request id.
 */
import { ApiError, DetailError, ValidationError, conflict, unavailable } from '../errors.js';
import { referencedByOthers } from '../write/protect.js';
import { missingReference } from '../write/reference.js';

interface PgError {
  code?: string;
  detail?: string;
  constraint?: string;
  message?: string;
}

/**
 * pg's own words (no SQLSTATE) for a connection the server closed under a query, one it cannot use
 * since, or one a silent server never completed within connectionTimeoutMillis (`timeout expired`).
 */
// (Knex puts the SQL and ' - ' before them)
const PG_CONNECTION_FAILURE = /(^| - )(Connection terminated unexpectedly|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout expired)$/;

const withCause = (mapped: ApiError, cause: unknown): ApiError => Object.assign(mapped, { cause });

/** The column a key violation's detail names (`Key (title)=(…)`). */
export const keyColumn = (detail: string | undefined): string | undefined => /Key \(([^)]+)\)=/.exec(detail ?? '')?.[1];

/** `deleting` marks a delete, where a foreign-key violation means "still referenced". */
export function mapDatabaseError(err: unknown, deleting: string | undefined): unknown {
  if (err instanceof ApiError || typeof err !== 'object' || err === null) return err;
  // Objection wraps driver errors (UniqueViolationError …) and keeps the original
  const e = ((err as { nativeError?: PgError }).nativeError ?? err) as PgError;
  const code = e.code ?? '';
  if (code === '23505') {
    const column = keyColumn(e.detail) ?? 'non_field_errors';
    return new ValidationError({ [column.includes(',') ? 'non_field_errors' : column]: [`A record with this ${column} already exists.`] });
  }
  if (code === '23503') {
    if (deleting) return conflict(referencedByOthers(deleting));
    const column = keyColumn(e.detail) ?? 'non_field_errors';
    const value = /\)=\(([^)]*)\)/.exec(e.detail ?? '')?.[1] ?? '';
    return new ValidationError({ [column]: [missingReference({ id: value })] });
  }
  if (code === '23502' || code === '23514') return withCause(new ValidationError({ non_field_errors: ['Invalid input.'] }), err);
  if (code.startsWith('22')) return withCause(new DetailError(400, 'Invalid input.'), err);
  // 57014: cancelled by statement_timeout; 55P03: lock_timeout; 25006: a write reached a standby (a failover under way)
  if (isConnectionFailure(err) || ['57014', '55P03', '25006'].includes(code)) return withCause(unavailable(), err);
  return err;
}

/** Network failures by errno; 08: connection exceptions; 57P01-57P03: the server is shutting down or starting. */
const CONNECTION_FAILURES = /^(08...|57P0[123]|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/;

/** Whether `err` says the server could not be reached or used at all (so another server might answer). */
export function isConnectionFailure(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = ((err as { nativeError?: PgError }).nativeError ?? err) as PgError & { name?: string };
  // pg reports a connection lost, or not made within its timeout, without a code
  return CONNECTION_FAILURES.test(e.code ?? '') || e.name === 'KnexTimeoutError' || /^Connection terminated/.test(e.message ?? '') || PG_CONNECTION_FAILURE.test(e.message ?? '');
}
