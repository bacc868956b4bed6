/** The OpenAPI document as the running service serves it, fetched once, and its operations as a flat list. */
import type { Document, Method, Operation, Ref, Schema } from '../../engine/openapi/types.js';
import { METHODS } from '../../engine/openapi/types.js';
import { suite } from './hooks.js';

let served: Promise<Document> | undefined;

export function servedDocument(): Promise<Document> {
  served ??= suite()
    .admin.get('/api/schema/?format=json', { token: null })
    .then((res) => {
      if (res.status !== 200) throw new Error(`GET /api/schema/: ${res.status}`);
      return res.body as Document;
    });
  return served;
}

export interface DocumentedOperation {
  path: string;
  method: Method;
  op: Operation;
}

export function operations(doc: Document): DocumentedOperation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method]! })));
}

/** A `$ref` followed to its component (one level; components do not point at components). */
export function resolve<T>(doc: Document, value: T | Ref): T {
  if (typeof value !== 'object' || value === null || !('$ref' in value)) return value;
  const [, , kind, name] = value.$ref.split('/');
  return (doc.components as unknown as Record<string, Record<string, T>>)[kind!]![name!]!;
}

/** The JSON schema of an operation's request body, if it has one. */
export function requestSchemaOf(doc: Document, op: Operation): Schema | undefined {
  const schema = op.requestBody?.content['application/json']?.schema;
  return schema && resolve<Schema>(doc, schema);
}

/** Whether the operation needs credentials (its own requirement, else the document's). */
export const isSecured = (doc: Document, op: Operation): boolean => (op.security ?? doc.security).length > 0;
