#!/usr/bin/env node
/**
 * `npm run mcp` / `sev-mcp`: the MCP server on stdio, for desktop agents, talking to a running
 * service at SEV_URL (default http://127.0.0.1:8080) with the key SEV_API_KEY through the
 * typed client. Nothing but the protocol goes to stdout; problems go to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { SevClient } from '../../clients/typescript/src/index.js';
import { createMcpServer } from './mcp-server.js';

const apiKey = process.env.SEV_API_KEY;
if (!apiKey) {
  process.stderr.write('SEV_API_KEY is not set: give the MCP server a key of the service (see docs/mcp.md).\n');
  process.exit(2);
}
const baseUrl = process.env.SEV_URL ?? `http://127.0.0.1:${process.env.PORT ?? '8080'}`;
const server = createMcpServer(new SevClient({ baseUrl, apiKey }));
await server.connect(new StdioServerTransport());
process.stderr.write(`sev MCP server on stdio, calling ${baseUrl}\n`);
