import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOOL_NAME_PATTERN } from '../registry/tool-registry.js';
import { mcpToolName } from './mcp-tool-name.js';

test('MCP tool names follow provider rules and stay distinct when cut', () => {
  assert.equal(mcpToolName('files', 'read'), 'mcp__files__read');
  assert.equal(mcpToolName('my server', 'get.weather/v2'), 'mcp__my_server__get_weather_v2');
  const long = 'x'.repeat(80);
  const first = mcpToolName('server', `${long}a`);
  const second = mcpToolName('server', `${long}b`);
  assert.equal(first.length, 64);
  assert.notEqual(first, second);
  for (const name of [first, second, mcpToolName('数据', '工具')]) assert.match(name, TOOL_NAME_PATTERN);
});
