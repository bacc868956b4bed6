/**
 * Identifiers with check digits: the Swiss social security number (AHV number, `756.XXXX.XXXX.XX`,
 * EAN-13) and the IBAN (ISO 13616, mod 97). Typed with spaces, dots or dashes, each is stored in one
 * form, encrypted; being personal data, neither is filtered, ordered or searched.
 */
import type { AhvField, IbanField } from '../declare/fields.js';
import { type FieldType, whenFiltered } from './field-type.js';
import { encryptValue } from '../storage/field-encryption.js';
import { textual } from './strings.js';

export const AHV_PATTERN = '^756\\.\\d{4}\\.\\d{4}\\.\\d{2}$';
export const IBAN_PATTERN = '^[A-Z]{2}\\d{2}[A-Z0-9]{11,30}$';

/** The EAN-13 check digit of the first twelve digits is the thirteenth. */
export function validAhv(value: string): boolean {
  const digits = value.replace(/\./g, '');
  if (!/^756\d{10}$/.test(digits)) return false;
  const sum = [...digits.slice(0, 12)].reduce((s, d, i) => s + Number(d) * (i % 2 ? 3 : 1), 0);
  return (10 - (sum % 10)) % 10 === Number(digits[12]);
}

/** The IBAN with its first four characters moved to the end, letters as 10…35, is 1 modulo 97. */
export function validIban(value: string): boolean {
  if (!new RegExp(IBAN_PATTERN).test(value)) return false;
  const moved = value.slice(4) + value.slice(0, 4);
  let rest = 0;
  for (const c of moved) {
    const n = parseInt(c, 36);
    rest = (n > 9 ? rest * 100 + n : rest * 10 + n) % 97;
  }
  return rest === 1;
}

/** Separators a person types dropped; a string of any other shape is left for validation to refuse. */
const compact = (value: unknown): unknown => (typeof value === 'string' ? value.replace(/[\s.-]/g, '') : value);

const notFiltered = {
  ...textual,
  lookups: [],
  defaultLookups: whenFiltered([]),
  orderable: false,
  documentedExample: 'request',
  encrypted: true,
  store: (_spec: unknown, value: unknown) => encryptValue(value as string),
} as const;

/** With the check digit of the first twelve digits of `756` + `n`. */
function ahvExample(n: number): string {
  const twelve = `756${String(1234_5678_0 + n).padStart(9, '0').slice(-9)}`;
  const sum = [...twelve].reduce((s, d, i) => s + Number(d) * (i % 2 ? 3 : 1), 0);
  const digits = `${twelve}${(10 - (sum % 10)) % 10}`;
  return `${digits.slice(0, 3)}.${digits.slice(3, 7)}.${digits.slice(7, 11)}.${digits.slice(11)}`;
}

/** A Swiss IBAN of account `n`, its check digits computed. */
function ibanExample(n: number): string {
  const bban = `00762${String(n).padStart(12, '0')}`;
  for (let check = 2; check < 99; check++) {
    const iban = `CH${String(check).padStart(2, '0')}${bban}`;
    if (validIban(iban)) return iban;
  }
  throw new Error('unreachable: some check digits fit');
}

export const ahvType: FieldType<AhvField> = {
  ...notFiltered,
  column: () => ({ type: 'text' }),
  schema: () => ({ type: 'string', format: 'ahv-number', pattern: AHV_PATTERN }),
  normalise(_spec, value) {
    const digits = compact(value);
    return typeof digits === 'string' && /^\d{13}$/.test(digits) ? `${digits.slice(0, 3)}.${digits.slice(3, 7)}.${digits.slice(7, 11)}.${digits.slice(11)}` : value;
  },
  example: (_s, _name, n) => ahvExample(n),
  message: (keyword) => (keyword === 'pattern' || keyword === 'format' ? 'Enter a valid AHV number: 756.XXXX.XXXX.XX with its check digit.' : undefined),
};

export const ibanType: FieldType<IbanField> = {
  ...notFiltered,
  column: () => ({ type: 'text' }),
  schema: () => ({ type: 'string', maxLength: 34, format: 'iban', pattern: IBAN_PATTERN }),
  normalise: (_spec, value) => {
    const c = compact(value);
    return typeof c === 'string' ? c.toUpperCase() : c;
  },
  example: (_s, _name, n) => ibanExample(n),
  message: (keyword) => (keyword === 'pattern' || keyword === 'format' ? 'Enter a valid IBAN (country code, check digits and account; spaces allowed).' : undefined),
};
