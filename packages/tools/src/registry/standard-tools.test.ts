import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ToolOutputStore } from '@strata/context';
import { registerStandardTools } from './standard-tools.js';
import { ToolRegistry } from './tool-registry.js';

const store: ToolOutputStore = { put: async () => ({ id: 'x', chars: 0, lines: 0, bytes: 0 }), get: async () => undefined, close: async () => {} };
const catalog = { directory: '/skills', skills: [{ name: 'csv', description: 'CSV', metadata: {}, directory: '/skills/csv', file: '/skills/csv/SKILL.md', revision: 'sha256:0', files: [] }] };

test('standard tools: discovery only when deferred tools exist, unless asked', () => {
  const plain = new ToolRegistry();
  assert.deepEqual(registerStandardTools({ registry: plain, outputStore: store, skills: catalog }), ['read_skill', 'read_tool_output']);
  const withDeferred = new ToolRegistry();
  withDeferred.register({ name: 'hidden', parameters: { type: 'object' }, execute: () => ({ content: '' }) }, { deferred: true });
  assert.deepEqual(registerStandardTools({ registry: withDeferred }), ['search_tools']);
  assert.deepEqual(registerStandardTools({ registry: new ToolRegistry(), discovery: true }), ['search_tools']);
  assert.deepEqual(withDeferred.visibleTools().map((tool) => tool.name), ['search_tools']);
});
