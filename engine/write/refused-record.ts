/**
 * What a refused update answers of its record as it was: only the served fields the refusal's words
 * read (a state's move, an order rule's two fields, the parent a link must share when the write
 * leaves it), not the whole record. The whole record would put its link arrays and derived fields'
 * subqueries in every PATCH's plan, which PostgreSQL sets up on each run though only a refusal reads
 * them (about a tenth of a state PATCH's PostgreSQL time).
 */
import type { Resource } from '../registry/resource.js';
import { literal } from '../schema/model.js';
import { selectParts } from '../storage/serialise.js';
import { referenceReads } from './diagnostics.js';
import { orderReads } from './order.js';
import { OLD } from './parts.js';
import { stateReads } from './state.js';

/** What the rules that word a refused update read of the record as it was, each as its rule says. */
const wordedFields = (resource: Resource): Set<string> =>
  new Set([...stateReads(resource), ...resource.rules.flatMap((rule) => (rule.kind === 'order' ? orderReads(rule) : [])), ...referenceReads(resource)]);

const built = new WeakMap<Resource, string>();

/** SQL: the JSON object of those fields of the locked record (`OLD`), built once per resource. */
export function refusedRecord(resource: Resource): string {
  let sql = built.get(resource);
  if (sql === undefined) {
    const names = wordedFields(resource);
    const parts = selectParts(resource, undefined, OLD).filter((p) => names.has(p.name));
    sql = parts.length ? `json_build_object(${parts.map((p) => `${literal(p.name)}, ${p.sql}`).join(', ')})` : `'{}'::json`;
    built.set(resource, sql);
  }
  return sql;
}
