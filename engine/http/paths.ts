/** Path conventions of CONTRACT 5: an optional trailing slash, and 301s from the deprecated paths. */
import type { Context, Next } from 'koa';

/** spec 4.4: old path prefix → new one. */
const DEPRECATED: readonly [string, string][] = [
  ['/api/mitarbeitende', '/api/organisation/mitarbeitende'],
  ['/api/salary', '/api/organisation/salary'],
  ['/api/monthlyclosing', '/api/timetracker/monthlyclosing'],
];

export function deprecatedTarget(path: string): string | undefined {
  for (const [old, successor] of DEPRECATED) {
    if (path === old || path.startsWith(`${old}/`)) return successor + path.slice(old.length);
  }
  return undefined;
}

export const deprecatedPaths = (): readonly [string, string][] => DEPRECATED;

/** Answers a deprecated path with 301 for every method, before authentication. */
export async function redirectDeprecated(ctx: Context, next: Next): Promise<void> {
  const target = deprecatedTarget(ctx.path);
  if (!target) return next();
  const successor = DEPRECATED.find(([old]) => ctx.path === old || ctx.path.startsWith(`${old}/`))![1];
  ctx.status = 301;
  ctx.set('Location', target + (ctx.querystring ? `?${ctx.querystring}` : ''));
  ctx.set('Deprecation', 'true');
  ctx.set('Link', `<${successor}>; rel="successor-version"`);
  ctx.body = { detail: `This path is deprecated; use ${successor}.` };
}

/** `/api/x/` and `/api/x` are the same resource. */
export async function stripTrailingSlash(ctx: Context, next: Next): Promise<void> {
  if (ctx.path.length > 1 && ctx.path.endsWith('/')) ctx.path = ctx.path.replace(/\/+$/, '') || '/';
  return next();
}
