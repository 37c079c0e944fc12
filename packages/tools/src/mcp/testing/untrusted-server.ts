/**
 * A real MCP server, run as a stdio script, that says what its environment
 * tells it to: `STRATA_FIXTURE_PAYLOADS` holds a JSON array of strings, and
 * tool `probe_<n>` has the n-th string as its description and answers with
 * it. For tests of untrusted text (injections in descriptions and results).
 * Not part of the package's public API.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const payloads = JSON.parse(process.env['STRATA_FIXTURE_PAYLOADS'] ?? '[]') as string[];
const server = new McpServer({ name: 'untrusted-server', version: '1.0.0' });
payloads.forEach((payload, index) => {
  server.registerTool(`probe_${index}`, { description: payload, inputSchema: {} }, async () => ({ content: [{ type: 'text', text: payload }] }));
});
await server.connect(new StdioServerTransport());
