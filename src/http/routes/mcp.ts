import type { Route } from './route.js';

/** JSON-RPC request the audit entry names: the MCP method and, for a tool call, the tool. */
interface JsonRpcCall {
  method?: unknown;
  params?: { name?: unknown };
}

export const postMcp: Route = {
  operationId: 'mcp',
  method: 'POST',
  path: '/mcp',
  summary: 'The MCP server (Model Context Protocol, Streamable HTTP, stateless, JSON answers): tools search, extract, summarize, validate, crawl, index_documents; see docs/mcp.md',
  tag: 'MCP',
  scope: 'authenticated',
  async handler(ctx, _input, services) {
    const call = ctx.request.body as JsonRpcCall | undefined;
    ctx.state.audit = {
      mcp_method: typeof call?.method === 'string' ? call.method.slice(0, 100) : null,
      ...(typeof call?.params?.name === 'string' ? { tool: call.params.name.slice(0, 100) } : {}),
    };
    const socket = ctx.req.socket as typeof ctx.req.socket & { encrypted?: boolean };
    const answer = await services.mcp.handle({
      headers: ctx.request.headers, body: ctx.request.body, remoteAddress: socket.remoteAddress ?? '', encrypted: Boolean(socket.encrypted),
    });
    ctx.status = answer.status;
    ctx.set(answer.headers);
    ctx.body = answer.body;
  },
};
