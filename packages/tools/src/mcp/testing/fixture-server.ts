/**
 * A small real MCP server for the bridge's tests. Run as a script it serves
 * over stdio; `createFixtureServer()` also serves Streamable HTTP in process.
 * Not part of the package's public API.
 */
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

export function createFixtureServer(): McpServer {
  const server = new McpServer({ name: 'fixture-server', version: '1.0.0' }, { instructions: 'A fixture for tests.' });
  server.registerTool(
    'echo',
    { description: 'Echo the given text back', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'add',
    { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  server.registerTool(
    'get.weather',
    { description: 'Weather forecast for a city', inputSchema: { city: z.string() } },
    async ({ city }) => ({ content: [{ type: 'text', text: `Sunny in ${city}` }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] }),
  );
  server.registerTool(
    'fail',
    { description: 'Report a tool-level failure', inputSchema: { reason: z.string() } },
    async ({ reason }) => ({ isError: true, content: [{ type: 'text', text: `refused: ${reason}` }] }),
  );
  server.registerTool('explode', { description: 'Throw inside the handler', inputSchema: {} }, async () => {
    throw new Error('kaboom');
  });
  server.registerTool('hang', { description: 'Never answer', inputSchema: {} }, () => new Promise<never>(() => undefined));
  server.registerTool('pid', { description: 'Report the server process id', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: String(process.pid) }],
  }));
  server.registerTool('exit', { description: 'End the server process', inputSchema: {} }, async () => {
    setImmediate(() => process.exit(3));
    return new Promise<never>(() => undefined);
  });
  return server;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await createFixtureServer().connect(new StdioServerTransport());
}
