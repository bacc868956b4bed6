/**
 * Conditional requests (RFC 9110 §8.8.3, §13.1): a detail's strong entity tag is a hash of the
 * JSON text it is served as, so equal bytes give equal tags on every instance, with nothing stored.
 * `If-Match` compares strongly (a weak tag never matches); `If-None-Match` weakly.
 */
import { createHash } from 'node:crypto';

export const entityTag = (text: string): string => `"${createHash('sha1').update(text).digest('base64url')}"`;

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

/** Whether `If-Match: header` holds for the representation tagged `current`. */
export function ifMatchHolds(header: string, current: string): boolean {
  const tags = tagsOf(header);
  return tags === '*' || tags.some((t) => !t.weak && t.opaque === current);
}

/** Whether `If-None-Match: header` names the representation tagged `current` (a GET then answers 304). */
export function noneMatchNames(header: string, current: string): boolean {
  const tags = tagsOf(header);
  return tags === '*' || tags.some((t) => t.opaque === current);
}
