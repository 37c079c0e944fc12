import { test } from 'node:test';
import assert from 'node:assert/strict';
import { searchDeferredTools, searchWords } from './tool-search.js';

const tools = [
  { name: 'mcp__gh__create_issue', description: 'Open an issue in a repository', routingHints: ['gh', 'github'], promoted: false },
  { name: 'mcp__fs__read_file', description: 'Read a file from disk', routingHints: ['fs', 'files'], promoted: false },
  { name: 'mcp__db__query', description: '查询数据库 (run SQL)', routingHints: ['db', 'postgres'], promoted: true },
];

test('words split on punctuation and underscores, in any script', () => {
  assert.deepEqual(searchWords('Read_File mcp__fs 查询 数据库'), ['read', 'file', 'mcp', 'fs', '查询', '数据库']);
});

test('name matches outrank hints, hints outrank descriptions; ties break on name', () => {
  assert.deepEqual(searchDeferredTools(tools, 'file').map((match) => [match.name, match.score]), [['mcp__fs__read_file', 3 + 2 + 1]]);
  assert.deepEqual(searchDeferredTools(tools, 'github issue').map((match) => match.name), ['mcp__gh__create_issue']);
  assert.deepEqual(searchDeferredTools(tools, '数据库').map((match) => match.name), ['mcp__db__query']);
  assert.deepEqual(searchDeferredTools(tools, 'mcp').map((match) => match.name), ['mcp__db__query', 'mcp__fs__read_file', 'mcp__gh__create_issue']);
  assert.deepEqual(searchDeferredTools(tools, 'spreadsheet'), []);
  assert.deepEqual(searchDeferredTools(tools, 'MCP__FS__READ_FILE').map((match) => match.name), ['mcp__fs__read_file']);
});
