/**
 * Conditional requests (RFC 9110 §8.8.3, §13.1) over a detail's strong entity tag (storage/entity-tag.ts).
 * `If-Match` compares strongly (a weak tag never matches); `If-None-Match` weakly.
 */
import type { Precondition } from '../storage/entity-tag.js';

export { entityTag } from '../storage/entity-tag.js';

interface EntityTag {
  weak: boolean;
  /** With its quotes, as `entityTag` spells it. */
  opaque: string;
}

/** The tags a condition header lists; `'*'` for any current representation. */
function tagsOf(header: string): EntityTag[] | '*' {
  if (header.trim() === '*') return '*';
  return [...header.matchAll(/(W\/)?("[^"]*")/g)].map((m) => ({ weak: m[1] !== undefined, opaque: m[2]! }));
}

/** `If-Match: header` as the tags the record must carry: its strong tags (a weak one never matches), or any for `*`. */
export function ifMatch(header: string): Precondition {
  const tags = tagsOf(header);
  return tags === '*' ? '*' : tags.filter((t) => !t.weak).map((t) => t.opaque);
}

/** Whether `If-None-Match: header` names the representation tagged `current` (a GET then answers 304). */
export function noneMatchNames(header: string, current: string): boolean {
  const tags = tagsOf(header);
  return tags === '*' || tags.some((t) => t.opaque === current);
}
