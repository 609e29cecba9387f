/**
 * The MCP server of both transports (Streamable HTTP at /mcp on the service, and stdio): the
 * tools of tools.ts over a typed client, on the official SDK's low-level Server, which lets each
 * tool keep the API's own JSON Schema as its input schema.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { SevClient } from '../../clients/typescript/src/index.js';
import { VERSION } from '../version.js';
import { callTool, TOOLS } from './tools.js';

const INSTRUCTIONS = 'sev searches its web index (search), reads pages (extract), summarises pages or text (summarize), checks claims (validate), '
  + 'and fills its index (crawl, index_documents). Answers cite their sources as [n]; long answers are cut to max_tokens.';

export function createMcpServer(client: SevClient): Server {
  const server = new Server({ name: 'sev', version: VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema as { type: 'object' } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => callTool(client, request.params.name, request.params.arguments ?? {}));
  return server;
}
