/**
 * A record's strong entity tag: a hash of the JSON text it is served as, so equal bytes give equal
 * tags on every instance, with nothing stored. Computed by the process for answers and by
 * PostgreSQL where a write compares `If-Match` under its row lock, the same function both ways.
 */
import { hash } from 'node:crypto';

export const entityTag = (text: string): string => `"${hash('sha256', text, 'base64url')}"`;

/** If-Match: the entity tags one of which the record as served must carry, or `*` for any; checked with its row locked. */
export type Precondition = readonly string[] | '*';

/** Whether the record served as `json` meets `precondition`. */
export const holds = (precondition: Precondition, json: string): boolean => precondition === '*' || precondition.includes(entityTag(json));

/** `entityTag` of the SQL text expression `json`. */
export const entityTagSql = (json: string): string => `'"' || rtrim(translate(encode(sha256(convert_to(${json}, 'UTF8')), 'base64'), '+/', '-_'), '=') || '"'`;
