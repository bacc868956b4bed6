/**
 * Every field type the declarations may use, by name. The mapped type makes a type without an
 * object a compile error: there is no silent default anywhere.
 */
import type { FieldSpec } from '../declare/fields.js';
import type { FieldType } from './field-type.js';
import { booleanType, enumType, stateType } from './choices.js';
import { decimalType, integerType } from './numbers.js';
import { colorType, emailType, passwordType, stringType, textType, urlType } from './strings.js';
import { ahvType, ibanType } from './identifiers.js';
import { jsonType, permissionsType } from './structured.js';
import { attachmentsType, fileType } from './files.js';
import { dateTimeType, dateType, timeType } from './temporal.js';

type Types = { readonly [K in FieldSpec['type']]: FieldType<Extract<FieldSpec, { type: K }>> };

const TYPES: Types = {
  string: stringType,
  text: textType,
  email: emailType,
  url: urlType,
  color: colorType,
  password: passwordType,
  integer: integerType,
  decimal: decimalType,
  boolean: booleanType,
  date: dateType,
  datetime: dateTimeType,
  time: timeType,
  enum: enumType,
  state: stateType,
  json: jsonType,
  permissions: permissionsType,
  file: fileType,
  attachments: attachmentsType,
  ahv: ahvType,
  iban: ibanType,
};

/** The type object of a declared field. */
export function typeOf<S extends FieldSpec>(spec: S): FieldType<S> {
  return TYPES[spec.type] as unknown as FieldType<S>;
}

export type { FieldType, ColumnSpec, Parsed, Schema } from './field-type.js';
