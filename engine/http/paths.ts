/** Path conventions of CONTRACT 5: an optional trailing slash, and 301s from declared deprecated paths. */
import type { Context, Next } from 'koa';

/** Where a deprecated path now lives (the rest of the path kept), if `path` is one. */
function deprecatedTarget(redirects: readonly (readonly [string, string])[], path: string): { location: string; successor: string } | undefined {
  for (const [old, successor] of redirects) {
    if (path === old || path.startsWith(`${old}/`)) return { location: successor + path.slice(old.length), successor };
  }
  return undefined;
}

/** Answers a deprecated path with 301 for every method, before authentication. */
export function redirectDeprecated(redirects: readonly (readonly [string, string])[]) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const target = deprecatedTarget(redirects, ctx.path);
    if (!target) return next();
    ctx.status = 301;
    ctx.set('Location', target.location + (ctx.querystring ? `?${ctx.querystring}` : ''));
    ctx.set('Deprecation', 'true');
    ctx.set('Link', `<${target.successor}>; rel="successor-version"`);
    ctx.body = { detail: `This path is deprecated; use ${target.successor}.` };
  };
}
/** `/api/x/` and `/api/x` are the same resource. */
export async function stripTrailingSlash(ctx: Context, next: Next): Promise<void> {
  if (ctx.path.length > 1 && ctx.path.endsWith('/')) ctx.path = ctx.path.replace(/\/+$/, '') || '/';
  return next();
}
