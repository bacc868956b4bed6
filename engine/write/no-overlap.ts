/**
 * Rule `noOverlap`: records of one scope have no overlapping [start, end) periods. Diagnostic: the
 * record the period overlaps. Reported under `start`.
 */
import type { RecordRule } from '../declare/index.js';
import type { Resource } from '../registry/resource.js';

export interface Overlap {
  other: unknown;
}

export const overlaps = (resource: Resource, rule: Extract<RecordRule, { kind: 'noOverlap' }>, { other }: Overlap): string =>
  `This period overlaps ${resource.name} ${String(other)} of the same ${rule.scope}.`;
