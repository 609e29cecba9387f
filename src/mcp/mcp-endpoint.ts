/**
 * The MCP server at POST /mcp on the service itself: the Streamable HTTP transport of the
 * official SDK, stateless (no session: each request stands alone, so any API process can
 * answer it) and answering JSON. The /mcp request has passed the edge like any other (a key is
 * required; rate limit and audit apply). Each tool call it carries is made as an ordinary API
 * request dispatched in this process through the same Koa application, with the caller's key,
 * address and scheme: the tool's endpoint applies its own scope, quotas, validation and audit.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import inject from 'light-my-request';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { SevClient } from '../../clients/typescript/src/index.js';
import { ApiError } from '../errors/catalogue.js';
import { createMcpServer } from './mcp-server.js';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** The /mcp request as the edge received it. */
export interface McpRequest {
  headers: Record<string, string | string[] | undefined>;
  /** The JSON body, parsed by the edge. */
  body: unknown;
  /** The connection's peer and whether it was TLS: the tool calls made for it come from the same place. */
  remoteAddress: string;
  encrypted: boolean;
}

export interface McpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Headers of the caller's request that its tool calls carry: who it is, and where it comes from. */
const FORWARDED = ['authorization', 'x-api-key', 'user-agent', 'x-forwarded-for', 'x-forwarded-proto', 'host'];
/** Longest wait for one tool's API request: the API's own limits end it first (60 s at most, extraction 70 s). */
const TOOL_TIMEOUT_MS = 90_000;

export class McpEndpoint {
  private handler: RequestHandler | undefined;

  /** The application's request handler, once it exists (it is built with this endpoint among its services). */
  attach(handler: RequestHandler): void {
    this.handler = handler;
  }

  async handle(request: McpRequest): Promise<McpResponse> {
    const server = createMcpServer(new SevClient({
      baseUrl: 'http://in-process', apiKey: '', retries: 0, timeoutMs: TOOL_TIMEOUT_MS, fetch: this.inProcessFetch(request),
    }));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(name, value);
      // Answers are always JSON: a client that only accepts JSON is served too.
      headers.set('accept', 'application/json, text/event-stream');
      const response = await transport.handleRequest(
        new Request('http://in-process/mcp', { method: 'POST', headers, body: JSON.stringify(request.body) }),
        { parsedBody: request.body },
      );
      const body = await response.text();
      if (response.status >= 400) throw refusal(body);
      return { status: response.status, headers: Object.fromEntries(response.headers), body };
    } finally {
      await server.close();
    }
  }

  /** A fetch that answers through the application in this process, as the caller's request would be answered. */
  private inProcessFetch(caller: McpRequest): typeof fetch {
    return async (input, init) => {
      const handler = this.handler;
      if (!handler) throw new Error('the MCP endpoint is not attached to the application');
      const url = new URL(input instanceof Request ? input.url : String(input));
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, name) => {
        if (name !== 'authorization') headers[name] = value;
      });
      for (const name of FORWARDED) {
        const value = caller.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const answer = await inject((req, res) => {
        // The tool call arrives over the caller's kind of connection (HTTPS_REQUIRED, forwarded headers).
        Object.defineProperty(req.socket, 'encrypted', { value: caller.encrypted });
        handler(req, res);
      }, {
        method: (init?.method ?? 'GET') as 'GET',
        url: `${url.pathname}${url.search}`,
        headers,
        ...(typeof init?.body === 'string' ? { payload: init.body } : {}),
        remoteAddress: caller.remoteAddress,
        ...(init?.signal ? { signal: init.signal } : {}),
      });
      return new Response(new Uint8Array(answer.rawPayload), {
        status: answer.statusCode,
        headers: Object.entries(answer.headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)] as [string, string]])),
      });
    };
  }
}

/** The transport refused the request itself (not JSON-RPC, a batch it cannot take...): said in the API's error envelope. */
function refusal(body: string): ApiError {
  let reason = 'not a JSON-RPC request of the Model Context Protocol';
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') reason = message;
  } catch {
    // The transport's own words are not JSON: the generic reason stands.
  }
  return new ApiError('INVALID_PARAMETER', { parameter: 'body', reason, provided: null }, `body: ${reason}`);
}
