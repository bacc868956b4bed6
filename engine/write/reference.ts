/**
 * Rule: a foreign key or link names a record that exists and the writer can see. Diagnostic: the
 * id as sent (a JSON Schema `minimum` refusal, a database foreign-key violation and the checks all
 * answer with this one message).
 */
export interface MissingReference {
  id: unknown;
}

export const missingReference = ({ id }: MissingReference): string => `Invalid pk "${String(id)}" - object does not exist.`;
