/**
 * An MCP server (low-level SDK `Server`, over stdio) that lists one good tool
 * and one whose input schema is malformed. For the bridge's tests only.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'bad-schema-server', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: 'good', description: 'A well-formed tool', inputSchema: { type: 'object', properties: {} } },
    { name: 'broken', description: 'A tool with a malformed schema', inputSchema: { type: 'object', properties: { when: { type: 'date' } } } },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: 'text', text: `called ${request.params.name}` }] }));
await server.connect(new StdioServerTransport());
