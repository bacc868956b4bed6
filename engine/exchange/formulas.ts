/**
 * CSV formula escaping (OWASP's "CSV injection"): a spreadsheet opening a CSV reads a text cell
 * starting with `=`, `+`, `-`, `@`, a tab or a carriage return as a formula. An export asked to
 * escape them (`escape_formulas=true`) prefixes such a text with `'`, and so also a text that is
 * already quotes before such a character; a CSV import takes one such `'` off again, so an escaped
 * export, edited and saved by a spreadsheet, imports to the values it was made from.
 */
const ESCAPED = /^'*[=+\-@\t\r]/;
const UNESCAPE = /^'+[=+\-@\t\r]/;

/** `text` as an escaped export writes it. */
export const escapeFormula = (text: string): string => (ESCAPED.test(text) ? `'${text}` : text);

/** A CSV cell's text as it was before an escaped export wrote it (the inverse of escapeFormula). */
export const unescapeFormula = (text: string): string => (UNESCAPE.test(text) ? text.slice(1) : text);
