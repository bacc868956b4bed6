/**
 * The parts of the OpenAPI 3.0.3 object model this generator writes, `ref()` for pointers into
 * `components` and `componentName()` for their names. Schemas stay plain records: they come
 * from the engine's JSON Schemas.
 */

export type Schema = Record<string, unknown>;
export interface Ref {
  $ref: string;
}

export type ComponentKind = 'schemas' | 'responses' | 'parameters' | 'headers';
export const ref = (kind: ComponentKind, name: string): Ref => ({ $ref: `#/components/${kind}/${name}` });
/** `organisation_lesson_progress` → `OrganisationLessonProgress`. */
export const componentName = (id: string): string => id.replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());

export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  description: string;
  /** Only `form` with `explode: false` is written: a comma-separated list. */
  style?: 'form';
  explode?: false;
  schema: Schema;
}

export interface Header {
  description: string;
  /** Sent with every such response; otherwise only when its description says. */
  required?: boolean;
  schema: Schema;
}

/** A media type: its schema, and for a request body the example Swagger UI sends. */
export type Content = Record<string, { schema: Schema | Ref; example?: unknown }>;

/** An operation that takes a value of this answer (a runtime expression such as `$response.body#/id`) as a parameter. */
export interface Link {
  operationId: string;
  description: string;
  parameters: Record<string, string>;
}

export interface Response {
  description: string;
  headers?: Record<string, Header | Ref>;
  content?: Content;
  links?: Record<string, Link>;
}

export interface RequestBody {
  required: boolean;
  description?: string;
  content: Content;
}

export type SecurityRequirement = Record<string, string[]>;

export interface Operation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters?: (Parameter | Ref)[];
  requestBody?: RequestBody;
  responses: Record<string, Response | Ref>;
  /** `[]` for public operations; absent: the document's global requirement. */
  security?: SecurityRequirement[];
  deprecated?: boolean;
  /** The model permission the operation needs (CONTRACT 7), for readers and the tests. */
  'x-required-permission'?: string;
}

export const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type Method = (typeof METHODS)[number];
export type PathItem = Partial<Record<Method, Operation>>;
export type Paths = Record<string, PathItem>;

/** Paths plus the component schemas they introduce. */
export interface PathsPart {
  paths: Paths;
  schemas: Record<string, Schema>;
}

export interface Document {
  openapi: '3.0.3';
  info: { title: string; version: string; description: string };
  servers: { url: string; description: string }[];
  tags: { name: string; description: string }[];
  security: SecurityRequirement[];
  paths: Paths;
  components: {
    schemas: Record<string, Schema>;
    responses: Record<string, Response>;
    parameters: Record<string, Parameter>;
    headers: Record<string, Header>;
    securitySchemes: Record<string, Record<string, string>>;
  };
}
