/**
 * `/mcp`: the Model Context Protocol over stateless streamable HTTP. The caller's token is checked
 * with the API's own token authentication first; then each request gets a fresh server and
 * transport (no session to keep), which answer on the raw Node request and response.
 *
 * The SDK (with zod) and the tools' definitions load on the first request to `/mcp`, not at boot
 * (an idle service measured 137 MiB resident instead of 141-144).
 */
import type Router from '@koa/router';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ResourceService } from '../crud/service.js';
import { methodNotAllowed, notAuthenticated } from '../errors.js';
import { readJsonBody } from '../http/json-body.js';
import { tokenKeyOf, type TokenAuthenticator } from '../auth/token-auth.js';
import type { Principal } from '../auth/users.js';
import { ToolCalls } from './calls.js';
import { reachable, toolDefinitions } from './tools.js';
import type { Revisions } from '../history/revisions.js';

export const MCP_PATH = '/mcp';

const SERVER_INFO = { name: 'bms-api', version: '1.0.0' };
/**
 * The most JSON-RPC messages one POST may carry (the SDK allows 100): each call runs its own
 * queries, one after another, so one request must not queue a hundred of them.
 */
export const MCP_BATCH_LIMIT = 20;

export function mountMcp(router: Router, services: Iterable<ResourceService>, tokens: TokenAuthenticator, writes: boolean, histories: ReadonlyMap<string, Revisions>): void {
  const within = reachable(services);
  let loaded: Promise<(user: Principal, requestId: string | undefined) => Server> | undefined;
  // writes are recorded as the caller's, as a REST write is (audit trail)
  const load = async () => {
    const [{ Server }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    const tools = toolDefinitions(within, writes);
    const calls = new ToolCalls(within, writes, histories);
    return (user: Principal, requestId: string | undefined): Server => {
      const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
      server.setRequestHandler(CallToolRequestSchema, (request) => calls.call(request.params.name, request.params.arguments ?? {}, { ...user, requestId }));
      return server;
    };
  };

  // stateless: no session, so no server-sent stream to open (GET) or end (DELETE)
  router.all(MCP_PATH, async (ctx) => {
    if (ctx.method !== 'POST') throw methodNotAllowed(ctx.method, ['POST']);
    const key = tokenKeyOf(ctx.get('Authorization') || undefined);
    if (key === undefined) throw notAuthenticated();
    const user = await tokens.authenticate(key);
    // read as the API reads bodies (413 over 1 MiB, 415, 400 for bytes that are not JSON) instead of by the SDK, which takes 4 MB
    const body = await readJsonBody(ctx);
    if (Array.isArray(body) && body.length > MCP_BATCH_LIMIT) {
      // refused as the SDK refuses a batch over its own limit: a JSON-RPC "Invalid Request"
      ctx.status = 400;
      ctx.body = { jsonrpc: '2.0', error: { code: -32600, message: `Invalid Request: Batch must not exceed ${MCP_BATCH_LIMIT} messages` }, id: null };
      return;
    }
    // answers are always JSON (no event stream), so a client that takes JSON is served, whatever else it lists
    if (ctx.accepts('application/json')) ctx.req.headers.accept = 'application/json, text/event-stream';
    // a load that failed is tried again by the next request, not kept
    const [serverFor, { StreamableHTTPServerTransport }] = await Promise.all([(loaded ??= load().catch((err: unknown) => ((loaded = undefined), Promise.reject(err)))), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]);
    const server = serverFor(user, ctx.state.requestId as string | undefined);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    ctx.respond = false;
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(ctx.req, ctx.res, body);
  });
}
