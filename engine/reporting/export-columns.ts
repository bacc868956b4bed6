/**
 * The columns of a list export: the keys the JSON list would serve (`fields=`, else every key the
 * caller's field mask leaves), in the order records serve them, each headed by its label from the
 * resource view. A foreign key is two columns, its id and its record's label (read through
 * `expand`, so under the target's visibility and field mask: a record the caller cannot see keeps
 * its id and no label); links are their ids joined by `;`.
 */
import type { FieldMask } from '../access/field-permissions.js';
import type { ResourceService } from '../crud/service.js';
import { inWords, recordLabelOf, viewFor } from '../describe/view.js';

/** A decimal's exact text: CSV writes it as it is, XLSX as a number (Excel holds no decimals). */
export interface Decimal {
  decimal: string;
}

/** A cell's value before a writer formats it: text, number, boolean, decimal or empty. */
export type Cell = string | number | boolean | Decimal | null;

export interface ExportColumn {
  header: string;
  /** The cell of a record as the JSON list serves it. */
  cell(record: Record<string, unknown>): Cell;
}

export interface ExportColumns {
  columns: ExportColumn[];
  /** The foreign keys to expand for their labels: the list's `expand`. */
  expand: string[];
}

const idOf = (value: unknown): unknown => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as { id?: unknown }).id : value);

/** A served value as one cell: ids of a link list joined by `;`, a structured value as its JSON. */
function cellOf(value: unknown, decimal: boolean): Cell {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return value.map(idOf).join(';');
  if (typeof value === 'object') return JSON.stringify(value);
  if (decimal && typeof value === 'string') return { decimal: value };
  return value as string | number | boolean;
}

export function exportColumns(service: ResourceService, mask: FieldMask, fields: string | undefined): ExportColumns {
  const view = viewFor(service.view, mask);
  const entries = new Map(view.entries.map((e) => [e.name, e]));
  const asked = fields?.split(',').map((s) => s.trim()).filter(Boolean);
  const names = service.shapes.fieldNames.filter((name) => !mask.hidden.has(name) && (!asked || asked.includes(name)));
  const columns: ExportColumn[] = [];
  const expand: string[] = [];
  for (const name of names) {
    const entry = entries.get(name);
    const header = entry?.label ?? (name === 'id' ? 'Id' : inWords(name));
    const decimal = entry?.kind === 'field' && entry.spec.type === 'decimal';
    columns.push({ header, cell: (record) => cellOf(idOf(record[name]), decimal) });
    const label = entry?.kind === 'fk' ? recordLabelOf(entry.target) : null;
    if (label === null) continue;
    expand.push(name);
    columns.push({ header: `${header} (label)`, cell: (record) => cellOf((record[name] as Record<string, unknown> | null)?.[label] ?? null, false) });
  }
  return { columns, expand };
}
