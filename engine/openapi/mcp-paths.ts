/** `/mcp`, the Model Context Protocol endpoint: one JSON-RPC message per POST, answered as JSON. */
import { MCP_BATCH_LIMIT, MCP_PATH } from '../mcp/server.js';
import { json, responsesOf } from './shared.js';
import type { Paths, Schema } from './types.js';

const message: Schema = {
  type: 'object',
  description: 'A JSON-RPC 2.0 message of the Model Context Protocol (`initialize`, `tools/list`, `tools/call`, notifications).',
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { oneOf: [{ type: 'integer' }, { type: 'string' }] },
    method: { type: 'string', example: 'tools/list' },
    params: { type: 'object' },
  },
  required: ['jsonrpc'],
};

export function mcpPaths(): Paths {
  return {
    [MCP_PATH]: {
      post: {
        operationId: 'mcp',
        summary: 'Model Context Protocol (streamable HTTP, stateless)',
        description:
          'Tools for agents generated from the declarations: `describe_resources`, `list_records`, `get_record`, and with MCP_WRITE_ENABLED=true `create_record` and `update_record`. ' +
          'Every call runs with the token\'s user through the same permissions and visibility as this API; an API error is a tool result with `isError` and the REST status and body. ' +
          'Answers are JSON (never an event stream). Token authentication only; resources declared `mcp: false` are out of reach.',
        tags: ['mcp'],
        security: [{ tokenAuth: [] }],
        requestBody: { required: true, content: json(message) },
        responses: responsesOf(
          {
            200: { description: 'The JSON-RPC response.', content: json({ type: 'object', description: 'A JSON-RPC 2.0 response (`result` or `error`).' }) },
            202: { description: 'A notification or response was accepted; no body.' },
            400: {
              description: `The body is not JSON (\`detail\`), or a batch of more than ${MCP_BATCH_LIMIT} messages (a JSON-RPC error, code -32600).`,
              content: json({ type: 'object' }),
            },
          },
          ['NotAuthenticated', 'PayloadTooLarge', 'UnsupportedMediaType'],
        ),
      },
    },
  };
}
