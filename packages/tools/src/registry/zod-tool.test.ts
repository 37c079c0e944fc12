import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { toolErrorCodeOf } from '../tool-error.js';
import { ToolRegistry } from './tool-registry.js';
import { defineZodTool } from './zod-tool.js';

test('defineZodTool gives the handler the parsed value and reports refinements as structured errors', async () => {
  const tool = defineZodTool({
    name: 'range',
    description: 'an ordered pair',
    parameters: z.object({ from: z.number().int(), to: z.number().int(), step: z.number().int().default(1) }).refine((value) => value.from <= value.to, { message: 'from must not exceed to' }),
    execute: (input) => ({ content: `${input.from}..${input.to} by ${input.step}` }),
  });
  const registry = new ToolRegistry();
  registry.register(tool);
  assert.deepEqual((registry.visibleTools()[0]?.parameters as { required: string[] }).required, ['from', 'to']);
  assert.equal((await registry.execute({ id: '1', name: 'range', input: { from: 1, to: 3 } }, { contextId: 'c' })).content, '1..3 by 1');
  const refused = await registry.execute({ id: '2', name: 'range', input: { from: 5, to: 3 } }, { contextId: 'c' });
  assert.equal(toolErrorCodeOf(refused), 'TOOL_ARGUMENTS_INVALID');
  assert.match(refused.content, /from must not exceed to/);
});
