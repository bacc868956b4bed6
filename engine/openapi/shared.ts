/**
 * Components every part of the document shares: the two error bodies (CONTRACT 3 and 4), the
 * state-change record, the error responses that point at them, common headers and parameters,
 * and the security schemes (CONTRACT 6).
 */
import { FIELD_MESSAGES } from '../errors.js';
import { BODY_LIMIT } from '../http/json-body.js';
import { INT_MAX } from '../fields/values.js';
import { missingReference } from '../write/reference.js';
import { ref, type Header, type Parameter, type Ref, type Response, type Schema, type SecurityRequirement } from './types.js';

export const json = (schema: Schema | Ref) => ({ 'application/json': { schema } });
const detail = (description: string, headers?: Response['headers']): Response => ({
  description,
  ...(headers ? { headers } : {}),
  content: json(ref('schemas', 'Detail')),
});

export const schemas: Record<string, Schema> = {
  ValidationError: {
    type: 'object',
    description: 'Field name → messages, every offending field at once; errors not tied to a field are under `non_field_errors`.',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    example: { title: [FIELD_MESSAGES.blank], tracker_id: [missingReference({ id: 99 })] },
  },
  Detail: {
    type: 'object',
    description: 'An error that is not about single fields.',
    properties: { detail: { type: 'string', description: 'Human-readable message.' } },
    required: ['detail'],
    additionalProperties: false,
  },
  StateChange: {
    type: 'object',
    description: 'One recorded move of a state field, including the initial state set at creation.',
    properties: {
      field: { type: 'string', description: 'Name of the state field that changed.' },
      from: { type: 'string', nullable: true, description: 'State before the move; null for the initial state.' },
      to: { type: 'string', description: 'State after the move.' },
      changed_by: { type: 'integer', nullable: true, description: 'Id of the user who made the move; null when that user was deleted.' },
      changed_at: { type: 'string', format: 'date-time', description: 'When the move happened (UTC).' },
    },
    required: ['field', 'from', 'to', 'changed_by', 'changed_at'],
    additionalProperties: false,
  },
};

export const headers: Record<string, Header> = {
  WWWAuthenticate: { description: 'Always `Token`: the scheme to authenticate with.', required: true, schema: { type: 'string', enum: ['Token'] } },
  RetryAfter: { description: 'Seconds until the next attempt is accepted.', required: true, schema: { type: 'integer', minimum: 0 } },
  Location: { description: 'The successor path, keeping the rest of the path and the query.', required: true, schema: { type: 'string' } },
  Deprecation: { description: 'Always `true`: the path will be removed.', required: true, schema: { type: 'string', enum: ['true'] } },
  Link: { description: 'The successor path as `<path>; rel="successor-version"`.', required: true, schema: { type: 'string' } },
  PageLinks: {
    description:
      'RFC 8288 links to the neighbouring pages, sent when the list has a page size (`limit`, or the server\'s MAX_LIST_ROWS): `rel="next"` when more records follow, always with a `cursor`; `rel="prev"` after an `offset` (as an offset) or a `cursor`. Each is the request\'s URL with every other parameter kept, e.g. `<https://host/api/issue/issue?limit=50&cursor=eyJv…>; rel="next"`.',
    schema: { type: 'string' },
  },
  TotalCount: { description: 'Sent only for `count=true`: how many records match the filters and are visible to the caller, whatever the paging.', schema: { type: 'integer', minimum: 0 } },
  ETag: {
    description:
      'Strong entity tag of the record as this answer serves it: send it back in `If-None-Match` (a GET answers 304 while the record is unchanged) or `If-Match` (PUT, PATCH and DELETE answer 412 when it changed meanwhile). Tags compare the full record, as GET without `fields` and `expand` serves it.',
    required: true,
    schema: { type: 'string' },
  },
  IdempotentReplayed: {
    description: 'Sent only when the answer is a replay: an earlier request with the same `Idempotency-Key` and body made it, and this one changed nothing.',
    schema: { type: 'string', enum: ['true'] },
  },
  ListTruncated: {
    description: "Sent only when the server's MAX_LIST_ROWS setting held back records: a list without `limit` (or with a larger one) ends after MAX_LIST_ROWS records, and `Link` `rel=\"next\"` continues it.",
    schema: { type: 'string', enum: ['true'] },
  },
};

/** Headers of an answer to a POST that may be a replay (`Idempotency-Key`). */
export const REPLAYED = { 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') };

/** Error responses by name; operations list theirs with `responsesOf()`. */
export const responses = {
  ValidationFailed: {
    description: 'Invalid query parameters, each named with its messages.',
    content: json(ref('schemas', 'ValidationError')),
  },
  BadRequest: {
    description: 'Invalid body: field name → messages; a body that is not a JSON object gets a `detail` instead.',
    content: json({ oneOf: [ref('schemas', 'ValidationError'), ref('schemas', 'Detail')] }),
  },
  NotAuthenticated: detail('No valid credentials: none given, or an unknown, revoked or expired token.', {
    'WWW-Authenticate': ref('headers', 'WWWAuthenticate'),
  }),
  PermissionDenied: detail('The caller lacks the permission for this action or record (or, under a session, the CSRF token is missing or wrong).'),
  NotFound: detail('No such record, or it is not visible to the caller.'),
  Conflict: detail('The record is still referenced by records that protect it from deletion.'),
  RestoreConflict: detail('The record cannot come back as it was: another record has since taken a value of a unique field, or a record it refers to is gone; the detail names the field.'),
  PayloadTooLarge: detail(`The body is larger than ${BODY_LIMIT / 1024 / 1024} MiB.`),
  UnsupportedMediaType: detail('The body is not `application/json`.'),
  Throttled: detail('Too many failed sign-ins for this username and address.', { 'Retry-After': ref('headers', 'RetryAfter') }),
  ListsThrottled: detail('The caller already has as many lists being read as LISTS_PER_USER allows, and none of them ended within POOL_ACQUIRE_TIMEOUT_MS.', {
    'Retry-After': ref('headers', 'RetryAfter'),
  }),
  NotModified: {
    description: 'The record still has the tag `If-None-Match` names; no body.',
    headers: { ETag: ref('headers', 'ETag') },
  },
  FileTooLarge: detail('The file is larger than FILE_MAX_BYTES (or the field\'s `maxBytes`): `File too large: at most N bytes.`, answered as soon as `Content-Length` or the bytes counted pass it; nothing is stored and the connection closes.'),
  RangeNotSatisfiable: detail('The `Range` starts past the end of the file.', {
    'Content-Range': { description: '`bytes */size`: the size of the file.', required: true, schema: { type: 'string', pattern: '^bytes \\*/\\d+$' } },
  }),
  PreconditionFailed: detail('`If-Match` names no current tag of the record: it changed meanwhile, and nothing was written.'),
  IdempotencyKeyReused: detail('The `Idempotency-Key` was used (by the same user, in the last 24 hours) with another request: another path or body.'),
  MovedPermanently: detail('The path is deprecated; the body names the successor.', {
    Location: ref('headers', 'Location'),
    Deprecation: ref('headers', 'Deprecation'),
    Link: ref('headers', 'Link'),
  }),
} satisfies Record<string, Response>;

export type ErrorResponse = keyof typeof responses;

const STATUS: Record<ErrorResponse, string> = {
  MovedPermanently: '301',
  NotModified: '304',
  ValidationFailed: '400',
  BadRequest: '400',
  NotAuthenticated: '401',
  PermissionDenied: '403',
  NotFound: '404',
  Conflict: '409',
  RestoreConflict: '409',
  PreconditionFailed: '412',
  PayloadTooLarge: '413',
  FileTooLarge: '413',
  RangeNotSatisfiable: '416',
  UnsupportedMediaType: '415',
  IdempotencyKeyReused: '422',
  Throttled: '429',
  ListsThrottled: '429',
};

/** An operation's responses: its success ones, plus the named shared errors under their status. */
export function responsesOf(success: Record<string, Response>, errors: readonly ErrorResponse[]): Record<string, Response | Ref> {
  return { ...success, ...Object.fromEntries(errors.map((e) => [STATUS[e], ref('responses', e)])) };
}

/** The errors of an operation that reads a JSON body. */
export const WRITE_ERRORS: readonly ErrorResponse[] = ['BadRequest', 'NotAuthenticated', 'PermissionDenied', 'PayloadTooLarge', 'UnsupportedMediaType'];

export const parameters: Record<string, Parameter> = {
  Id: { name: 'id', in: 'path', required: true, description: 'Id of the record.', schema: { type: 'integer', minimum: 1, maximum: INT_MAX } },
  Version: { name: 'version', in: 'path', required: true, description: "A version of the record (its audit entry's id), as its history lists it.", schema: { type: 'integer', minimum: 1, maximum: INT_MAX } },
  Limit: { name: 'limit', in: 'query', description: "Return at most this many records (never more than the server's MAX_LIST_ROWS, when it sets one); `Link` points to the neighbouring pages.", schema: { type: 'integer', minimum: 0, maximum: 999999999 } },
  Offset: { name: 'offset', in: 'query', description: 'Skip this many records first (for paging, with `limit`).', schema: { type: 'integer', minimum: 0, maximum: 999999999 } },
  Cursor: {
    name: 'cursor',
    in: 'query',
    description:
      'Keyset paging: start where the `cursor` of a `Link` header (`rel="next"` or `rel="prev"`) says, stable however many records are added or removed meanwhile. Pass it on unchanged with the `ordering` it was made for; not with `offset`.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' },
  },
  Count: {
    name: 'count',
    in: 'query',
    description: '`true`: also answer the number of matching records in `X-Total-Count` (one more query).',
    schema: { type: 'boolean' },
  },
  // request headers of conditional and idempotent requests
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    description: 'Entity tags (or `*`) of representations the client holds: when one is the record\'s current tag (compared weakly), the answer is 304 without a body.',
    schema: { type: 'string' },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    description: 'Entity tags (or `*`) the record must still have (compared strongly: a weak `W/` tag never matches); otherwise 412 and nothing is written. The comparison and the write happen with the record locked.',
    schema: { type: 'string' },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    description:
      'Any unique string (printable ASCII) chosen by the client: a repeat by the same user with the same key and body within 24 hours answers what the first answered, with `Idempotent-Replayed: true`, and changes nothing; a repeat sent while the first is running waits for it. The same key with another request answers 422. A request that fails leaves the key unused.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
  },
};

export const securitySchemes: Record<string, Record<string, string>> = {
  tokenAuth: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'An API token, sent as the whole header value `Token <key>`: the word Token, one space, the key (e.g. `Token 5f0c…`).',
  },
  cookieAuth: {
    type: 'apiKey',
    in: 'cookie',
    name: 'sessionid',
    description: 'The session cookie set by `POST /api/auth/login`. Writes (POST, PUT, PATCH, DELETE) also need the header `X-CSRFToken` equal to the `csrftoken` cookie.',
  },
};

/** Either scheme authenticates a request. */
export const globalSecurity: SecurityRequirement[] = [{ tokenAuth: [] }, { cookieAuth: [] }];
