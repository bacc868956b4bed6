/**
 * The paging headers of a list answer: RFC 8288 `Link` to the next and previous pages (the
 * request's own URL with another `offset` or `cursor`, every other parameter kept, at the service's
 * address as `linkBase` finds it), `X-Total-Count` when `count=true` asked for it, and
 * `X-List-Truncated` when MAX_LIST_ROWS cut the list short.
 */
import type { Context } from 'koa';
import type { ListAnswer } from '../crud/service.js';
import type { Position } from '../crud/list-page.js';
import { linkBase } from './origin.js';

export function pageUrl(ctx: Context, at: Position): string {
  const params = new URLSearchParams(ctx.querystring);
  params.delete('offset');
  params.delete('cursor');
  if ('cursor' in at) params.set('cursor', at.cursor);
  else if (at.offset > 0) params.set('offset', String(at.offset));
  const query = params.toString();
  // the path is a declared route's (the route table matches it exactly), the query re-encoded
  return `${linkBase(ctx)}${ctx.path}${query ? `?${query}` : ''}`;
}

export function listHeaders(ctx: Context, answer: ListAnswer): Record<string, string> {
  const headers: Record<string, string> = {};
  const { next, prev, truncated } = answer.links();
  const links = [next && `<${pageUrl(ctx, next)}>; rel="next"`, prev && `<${pageUrl(ctx, prev)}>; rel="prev"`].filter(Boolean);
  if (links.length) headers.Link = links.join(', ');
  const total = answer.total();
  if (total !== undefined) headers['X-Total-Count'] = total;
  if (truncated) headers['X-List-Truncated'] = 'true';
  return headers;
}
