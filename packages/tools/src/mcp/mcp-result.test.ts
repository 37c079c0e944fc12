import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { toolErrorCodeOf } from '../tool-error.js';
import { mcpContentText, mcpFailureOutcome, mcpResultOutcome } from './mcp-result.js';

const identity = { name: 'mcp__docs__get', server: 'docs', mcpTool: 'get' };

test('content blocks become text; binary content is a placeholder', () => {
  assert.equal(
    mcpContentText([
      { type: 'text', text: 'hello' },
      { type: 'audio', data: 'AAAAAAAA', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inline text' } },
      { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA', mimeType: 'application/octet-stream' } },
      { type: 'resource_link', uri: 'file:///c.md', name: 'c' },
      { type: 'widget' },
    ]),
    'hello\n[audio audio/wav, 6 bytes, not shown]\ninline text\n[resource file:///b.bin (application/octet-stream), binary, not shown]\n[resource link file:///c.md "c"]\n[widget content, not shown]',
  );
});

test('structured content is the text when no block is sent, and is kept in data', () => {
  assert.deepEqual(mcpResultOutcome(identity, { structuredContent: { pages: 3 } }), {
    content: '{"pages":3}',
    data: { server: 'docs', mcpTool: 'get', structuredContent: { pages: 3 } },
  });
});

test('isError without text and thrown protocol errors are structured', () => {
  const silent = mcpResultOutcome(identity, { isError: true, content: [] });
  assert.equal(toolErrorCodeOf(silent), 'MCP_TOOL_ERROR');
  assert.match(silent.content, /the MCP tool \\"get\\" of server \\"docs\\" reported an error/);
  const protocol = mcpFailureOutcome(identity, new McpError(ErrorCode.InvalidParams, 'Tool get not found'), false);
  assert.equal(toolErrorCodeOf(protocol), 'MCP_PROTOCOL_ERROR');
  assert.equal((JSON.parse(protocol.content) as { error: { mcpErrorCode: number } }).error.mcpErrorCode, ErrorCode.InvalidParams);
  assert.equal(toolErrorCodeOf(mcpFailureOutcome(identity, new McpError(ErrorCode.RequestTimeout, 'Request timed out'), false)), 'MCP_TIMEOUT');
  assert.equal(toolErrorCodeOf(mcpFailureOutcome(identity, new Error('Not connected'), true)), 'MCP_CONNECTION_CLOSED');
});
