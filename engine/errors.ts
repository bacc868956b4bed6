/**
 * The closed set of failures a request can end in. Each carries its HTTP status and body;
 * http/render-errors.ts is the one place they become responses.
 */

export type FieldErrors = Record<string, string[]>;

/**
 * An empty map for request-derived keys: no prototype, so a key such as `constructor` or
 * `__proto__` is an ordinary key, never an inherited member.
 */
export const emptyMap = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

export abstract class ApiError extends Error {
  abstract readonly status: number;
  readonly headers: Record<string, string> = {};
  abstract body(): unknown;
}

/** An error with a `{"detail": …}` body. */
export class DetailError extends ApiError {
  constructor(
    readonly status: number,
    readonly detail: string,
    headers: Record<string, string> = {},
  ) {
    super(detail);
    Object.assign(this.headers, headers);
  }
  body(): unknown {
    return { detail: this.detail };
  }
}

/** 400 with field name → messages. */
export class ValidationError extends ApiError {
  readonly status = 400;
  constructor(readonly errors: FieldErrors) {
    super('Validation failed');
  }
  static field(name: string, message: string): ValidationError {
    return new ValidationError({ [name]: [message] });
  }
  body(): unknown {
    return this.errors;
  }
}

/** Collects field errors so that every offending field is reported at once. */
export class FieldErrorCollector {
  readonly errors: FieldErrors = emptyMap();
  add(name: string, message: string): void {
    (this.errors[name] ??= []).push(message);
  }
  has(name?: string): boolean {
    return name === undefined ? Object.keys(this.errors).length > 0 : Object.hasOwn(this.errors, name);
  }
  throwIfAny(): void {
    if (this.has()) throw new ValidationError(this.errors);
  }
  /** A collector holding these errors, then those of `more` under names not yet here. */
  with(...more: FieldErrorCollector[]): FieldErrorCollector {
    const all = new FieldErrorCollector();
    for (const c of [this, ...more]) {
      const taken = new Set(Object.keys(all.errors));
      for (const [name, messages] of Object.entries(c.errors)) if (!taken.has(name)) messages.forEach((m) => all.add(name, m));
    }
    return all;
  }
}

/** One problem of an import's row (engine/exchange): the row as a spreadsheet numbers it (header: 1), the column's write name (null: the row as a whole). */
export interface RowError {
  row: number;
  field: string | null;
  messages: string[];
}

/** 400: an import with invalid rows, every error listed; nothing was written. */
export class RowsRefused extends ApiError {
  readonly status = 400;
  constructor(readonly errors: readonly RowError[]) {
    super('Import refused');
  }
  body(): unknown {
    const rows = new Set(this.errors.map((e) => e.row)).size;
    return { detail: `${rows} row${rows === 1 ? '' : 's'} cannot be imported; nothing was written.`, errors: this.errors };
  }
}

export const notAuthenticated = (detail = 'Authentication credentials were not provided.') =>
  new DetailError(401, detail, { 'WWW-Authenticate': 'Token' });
export const permissionDenied = (detail = 'You do not have permission to perform this action.') =>
  new DetailError(403, detail);
export const notFound = () => new DetailError(404, 'Not found.');
export const methodNotAllowed = (method: string, allowed: readonly string[]) =>
  new DetailError(405, `Method "${method}" not allowed.`, { Allow: allowed.join(', ') });
export const conflict = (detail: string) => new DetailError(409, detail);
export const preconditionFailed = () => new DetailError(412, 'Precondition failed.');
export const badRequest = (detail: string) => new DetailError(400, detail);
export const throttled = (seconds: number) =>
  new DetailError(429, `Request was throttled. Expected available in ${seconds} seconds.`, {
    'Retry-After': String(seconds),
  });
export const unavailable = () => new DetailError(503, 'Service temporarily unavailable.');

/** Field messages more than one check gives (DRF's wording, CONTRACT 4), each written once. */
export const FIELD_MESSAGES = {
  required: 'This field is required.',
  blank: 'This field may not be blank.',
  unknown: 'Unknown field.',
  notANumber: 'Enter a number.',
} as const;
