import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { toolErrorCodeOf } from '../tool-error.js';
import { defineSchemaTool } from './schema-tool.js';
import type { StandardSchemaWithJsonSchema } from './standard-schema.js';
import { ToolRegistry } from './tool-registry.js';

test('a zod schema: the handler gets the parsed value, refinements are structured errors', async () => {
  const tool = defineSchemaTool({
    name: 'range',
    description: 'an ordered pair',
    parameters: z.object({ from: z.number().int(), to: z.number().int(), step: z.number().int().default(1) }).refine((value) => value.from <= value.to, { message: 'from must not exceed to', path: ['to'] }),
    execute: (input) => ({ content: `${input.from}..${input.to} by ${input.step}` }),
  });
  const registry = new ToolRegistry();
  registry.register(tool);
  assert.deepEqual((registry.visibleTools()[0]?.parameters as { required: string[] }).required, ['from', 'to']);
  assert.equal((await registry.execute({ id: '1', name: 'range', input: { from: 1, to: 3 } }, { contextId: 'c' })).content, '1..3 by 1');
  const refused = await registry.execute({ id: '2', name: 'range', input: { from: 5, to: 3 } }, { contextId: 'c' });
  assert.equal(toolErrorCodeOf(refused), 'TOOL_ARGUMENTS_INVALID');
  assert.deepEqual((JSON.parse(refused.content) as { error: { issues: unknown } }).error.issues, [{ path: '/to', message: 'from must not exceed to' }]);
});

test('any Standard Schema with a JSON Schema converter works, not only zod', async () => {
  // A hand-written Standard Schema: an object with one even integer.
  const even: StandardSchemaWithJsonSchema<{ n: number }, { half: number }> = {
    '~standard': {
      version: 1,
      vendor: 'test',
      validate: (value) => {
        const n = (value as { n?: unknown }).n;
        return typeof n === 'number' && n % 2 === 0 ? { value: { half: n / 2 } } : { issues: [{ message: 'must be even', path: [{ key: 'n' }] }] };
      },
      jsonSchema: { input: () => ({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }) },
    },
  };
  const registry = new ToolRegistry();
  registry.register(defineSchemaTool({ name: 'halve', parameters: even, execute: (input) => ({ content: String(input.half) }) }));
  assert.deepEqual(registry.visibleTools()[0]?.parameters, { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
  assert.equal((await registry.execute({ id: '1', name: 'halve', input: { n: 8 } }, { contextId: 'c' })).content, '4');
  const odd = await registry.execute({ id: '2', name: 'halve', input: { n: 3 } }, { contextId: 'c' });
  assert.match(odd.content, /"path":"\/n","message":"must be even"/);
});
