/**
 * The sign-in and token endpoints of `/api/auth` (CONTRACT 6): session login and logout, the
 * signed-in user with its permission names, and the caller's own API tokens.
 */
import { INT_MAX } from '../fields/values.js';
import { LOGIN_SCHEMA, TOKEN_SCHEMA } from '../http/auth-routes.js';
import { toOpenApi } from './json-schema.js';
import { json, responsesOf, WRITE_ERRORS } from './shared.js';
import { ref, type Operation, type PathsPart, type Schema } from './types.js';

const dateTime = (description: string, nullable = false): Schema => ({ type: 'string', format: 'date-time', ...(nullable ? { nullable: true } : {}), description });

const token: Schema = {
  type: 'object',
  description: 'An API token of the caller; its key is shown only once, when it is created.',
  properties: {
    id: { type: 'integer', minimum: 1, maximum: INT_MAX, description: 'Identifier of the token.', example: 2 },
    name: { type: 'string', description: 'What the token is for.' },
    created: dateTime('When the token was created (UTC).'),
    last_used: dateTime('When the token last authenticated a request (UTC, updated at most once a minute); null if never.', true),
    expires: dateTime('When the token stops working (UTC); null for never.', true),
  },
  required: ['id', 'name', 'created', 'last_used', 'expires'],
  additionalProperties: false,
};

/** `user`: the read schema of the user resource, which the signed-in user is served as. */
export function authPaths(user: Schema): PathsPart {
  const userProperties = user.properties as Record<string, Schema>;
  const schemas: Record<string, Schema> = {
    LoginRequest: { ...toOpenApi(LOGIN_SCHEMA), description: 'Credentials for a session sign-in.' },
    UserWithPermissions: {
      ...user,
      title: 'Signed-in user',
      description: 'The signed-in user with the names of the permissions it holds.',
      properties: {
        ...userProperties,
        permissions: { type: 'array', items: { type: 'string' }, description: 'Permission names (`app.action_model`) the user holds through its groups; every name for a superuser.' },
      },
      required: [...Object.keys(userProperties), 'permissions'],
    },
    Token: token,
    // the schema the endpoint validates with
    TokenCreateRequest: { ...toOpenApi(TOKEN_SCHEMA), description: 'A new API token; `expires` must lie in the future.' },
    TokenCreated: {
      ...token,
      description: 'The new token with its key: the only time the key is shown.',
      properties: { ...(token.properties as Record<string, Schema>), token: { type: 'string', description: 'The key, sent as `Authorization: Token <key>`.' } },
      required: [...(token.required as string[]), 'token'],
    },
  };
  const op = (operationId: string, summary: string, description: string, rest: Omit<Operation, 'operationId' | 'summary' | 'description' | 'tags'>): Operation => ({
    operationId,
    summary,
    description,
    tags: ['auth'],
    ...rest,
  });
  const me = { description: 'The signed-in user.', content: json(ref('schemas', 'UserWithPermissions')) };
  return {
    schemas,
    paths: {
      '/api/auth/login': {
        post: op('auth_login', 'Sign in', 'Starts a session: sets the cookie `sessionid` (HttpOnly) and the cookie `csrftoken`, whose value writes must send as the header `X-CSRFToken`. Failed sign-ins are throttled per username and address.', {
          security: [],
          requestBody: { required: true, content: json(ref('schemas', 'LoginRequest')) },
          responses: responsesOf({ 200: me }, ['BadRequest', 'PayloadTooLarge', 'UnsupportedMediaType', 'Throttled']),
        }),
      },
      '/api/auth/logout': {
        post: op('auth_logout', 'Sign out', 'Ends the session.', {
          responses: responsesOf({ 204: { description: 'Signed out; no body.' } }, ['NotAuthenticated', 'PermissionDenied']),
        }),
      },
      '/api/auth/me': {
        get: op('auth_me', 'The signed-in user', 'The caller with its permission names.', { responses: responsesOf({ 200: me }, ['NotAuthenticated']) }),
      },
      '/api/auth/tokens': {
        get: op('auth_tokens_list', 'List own API tokens', "The caller's tokens, without their keys.", {
          responses: responsesOf({ 200: { description: 'The tokens.', content: json({ type: 'array', items: ref('schemas', 'Token') }) } }, ['NotAuthenticated']),
        }),
        post: op('auth_tokens_create', 'Create an API token', 'Creates a token for the caller and shows its key, once.', {
          requestBody: { required: true, content: json(ref('schemas', 'TokenCreateRequest')) },
          responses: responsesOf({ 201: { description: 'The token with its key.', content: json(ref('schemas', 'TokenCreated')) } }, WRITE_ERRORS),
        }),
      },
      '/api/auth/tokens/{id}': {
        delete: op('auth_tokens_destroy', 'Revoke an API token', 'Deletes one of the caller\'s tokens; it stops working at once.', {
          parameters: [ref('parameters', 'Id')],
          responses: responsesOf({ 204: { description: 'Revoked; no body.' } }, ['NotAuthenticated', 'PermissionDenied', 'NotFound']),
        }),
      },
    },
  };
}
