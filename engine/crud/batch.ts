/**
 * A batch action of CONTRACT 10 over records of one resource. The body names the records
 * (`<name>_ids`, at most `maxIds` as sent, each record changed once); in one transaction every record must
 * be visible (else 400) and changeable (else 403), then the records are changed or deleted as a
 * set (service.batch: the same checks and hooks as one record's write, one statement without
 * checks in the process), so one refusal leaves every record as it was.
 * Answers `{<resultKey>: count}`.
 */
import type { Principal } from '../auth/users.js';
import { FieldErrorCollector } from '../errors.js';
import type { Batch } from '../registry/resource.js';
import { INT_MAX } from '../fields/values.js';
import { expectObject, type Values } from './body.js';
import { uniqueIds } from './rows.js';
import type { ResourceService } from './service.js';
import { compileBodyValidator, createAjv, type BodyValidator } from './validator.js';

/** The body: the ids, and for `setForeignKey` the key's write name (`folder_id`); sizes are checked after. */
function bodySchema(batch: Batch): Record<string, unknown> {
  const integer = { type: 'integer', minimum: 1, maximum: INT_MAX };
  const properties: Record<string, unknown> = { [batch.idsField]: { type: 'array', items: integer } };
  const fk = batch.foreignKey;
  if (fk) properties[fk.writeName] = fk.required ? integer : { ...integer, type: ['integer', 'null'] };
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

export class BatchService {
  private readonly validator: BodyValidator;

  constructor(
    readonly batch: Batch,
    /** The service of the batch's resource, whose write path each changed record takes. */
    private readonly records: ResourceService,
  ) {
    this.validator = compileBodyValidator(createAjv(), bodySchema(batch));
  }

  async run(user: Principal, body: unknown): Promise<Record<string, number>> {
    const { ids, values, errors } = this.parse(body);
    const { idsField, declaration } = this.batch;
    const deleting = declaration.operation.kind === 'delete';
    return { [declaration.resultKey]: await this.records.batch(user, { ids, values, errors, idsField, deleting }) };
  }

  private parse(body: unknown): { ids: number[]; values: Values; errors: FieldErrorCollector } {
    const given = expectObject(body);
    const errors = new FieldErrorCollector();
    for (const [field, messages] of Object.entries(this.validator(given))) for (const m of messages) errors.add(field, m);
    const { idsField, maxIds, foreignKey, declaration } = this.batch;
    let ids: number[] = [];
    if (!errors.has(idsField)) {
      ids = uniqueIds(given[idsField]);
      if (ids.length === 0) errors.add(idsField, 'This list may not be empty.');
      // the limit is on what is sent: a thousand repeats of one id are as many to read and check
      if ((given[idsField] as unknown[]).length > maxIds) errors.add(idsField, `Ensure this field has no more than ${maxIds} elements.`);
    }
    const op = declaration.operation;
    let values: Values = {};
    if (op.kind === 'set') values = { ...op.values };
    else if (foreignKey && !errors.has(foreignKey.writeName)) values = { [foreignKey.writeName]: given[foreignKey.writeName] };
    return { ids: errors.has(idsField) ? [] : ids, values, errors };
  }
}
