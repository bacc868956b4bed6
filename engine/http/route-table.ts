/**
 * The protected API routes by path, built once at boot: a request finds its route with at most three
 * Map lookups (its path, then the path with its last or second-to-last segment read as the `:id`)
 * instead of trying some 300 patterns in turn. Matching is exact, so case-sensitive: `/API/...`
 * matches nothing. Trailing slashes are gone before this runs (paths.ts).
 */
import type { Context, Middleware } from 'koa';

/** What a route does for a request; `id` is the `:id` segment, URL-decoded, if the route has one; `inner` the second, on a route with two. */
export type Route = (ctx: Context, id: string | undefined, inner?: string) => Promise<void>;

const ID = ':id';

/** As the router did: a segment that is not valid percent-encoding is taken as it is. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export class RouteTable {
  private readonly literal = new Map<string, Route>();
  /** By path with `:id` in place of the id, kept apart so a request for the path `…/:id` finds none. */
  private readonly withId = new Map<string, Route>();
  /** Paths `…/:id/<word>/:id/<word>` (a record's version's action), looked up last. */
  private readonly withTwo = new Map<string, Route>();

  /**
   * `path` is literal, or has one `:id` segment as its last or second-to-last, or two as its fourth-
   * and second-to-last; each matches any non-empty segment.
   */
  add(path: string, route: Route): void {
    const segments = path.split('/');
    if (segments.filter((s) => s === ID).length === 2 && segments.at(-4) === ID && segments.at(-2) === ID) {
      if (this.withTwo.has(path)) throw new Error(`Route ${path} is declared twice.`);
      this.withTwo.set(path, route);
      return;
    }
    const at = segments.indexOf(ID);
    if (segments.lastIndexOf(ID) !== at || (at !== -1 && at < segments.length - 2)) throw new Error(`Route ${path}: ${ID} must be its last or second-to-last segment.`);
    const routes = at === -1 ? this.literal : this.withId;
    if (routes.has(path)) throw new Error(`Route ${path} is declared twice.`);
    routes.set(path, route);
  }

  /** The route of `path`, the pattern it was added under (`template`) and its ids. */
  private find(path: string): { route: Route; template: string; id?: string; inner?: string } | undefined {
    const literal = this.literal.get(path);
    if (literal) return { route: literal, template: path };
    const segments = path.split('/');
    for (let i = segments.length - 1; i >= Math.max(1, segments.length - 2); i--) {
      const id = segments[i]!;
      if (id === '') continue;
      segments[i] = ID;
      const template = segments.join('/');
      const route = this.withId.get(template);
      segments[i] = id;
      if (route) return { route, template, id: decodeSegment(id) };
    }
    const [outer, inner] = [segments.at(-4), segments.at(-2)];
    if (segments.length < 6 || !outer || !inner) return undefined;
    const template = [...segments.slice(0, -4), ID, segments.at(-3), ID, segments.at(-1)].join('/');
    const route = this.withTwo.get(template);
    return route && { route, template, id: decodeSegment(outer), inner: decodeSegment(inner) };
  }

  /**
   * Runs the route matching the path after `guard` (authentication); passes requests it has no route
   * for on. `ctx.state.route` names the route by its pattern (`/api/dms/document/:id`), never by the ids in the path.
   */
  middleware(guard: Middleware): Middleware {
    return async (ctx, next) => {
      const match = this.find(ctx.path);
      if (!match) return next();
      ctx.state.route = match.template;
      await guard(ctx, () => match.route(ctx, match.id, match.inner));
    };
  }
}
