import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_JSON_DEPTH, type JsonValue, type ToolDefinition, type ToolOutcome } from '@strata/context';
import { z } from 'zod';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import { toolErrorCodeOf } from '../tool-error.js';
import { createSearchToolsTool } from './search-tools-tool.js';
import { ToolRegistry } from './tool-registry.js';

const context = { contextId: 'ctx-1' };

function echoTool(name: string, overrides: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name,
    description: `echoes for ${name}`,
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    execute: (input) => ({ content: `${name}:${(input as { text: string }).text}` }),
    ...overrides,
  };
}

function errorOf(outcome: ToolOutcome): { code: string; message: string; [key: string]: JsonValue } {
  assert.equal(outcome.isError, true);
  return (JSON.parse(outcome.content) as { error: { code: string; message: string } }).error;
}

test('visible tools are sorted by name and deterministic', () => {
  const registry = new ToolRegistry();
  for (const name of ['zeta', 'alpha', 'mid']) registry.register(echoTool(name));
  assert.deepEqual(registry.visibleTools().map((tool) => tool.name), ['alpha', 'mid', 'zeta']);
  assert.deepEqual(JSON.stringify(registry.visibleTools()), JSON.stringify(registry.visibleTools()));
});

test('registration errors name the tool and the schema path', () => {
  const registry = new ToolRegistry();
  registry.register(echoTool('dup'));
  assert.throws(() => registry.register(echoTool('dup')), (error: unknown) => ToolDefinitionError.isInstance(error) && error.code === 'TOOL_NAME_DUPLICATE' && error.toolName === 'dup');
  assert.throws(() => registry.register(echoTool('bad name!')), (error: unknown) => ToolDefinitionError.isInstance(error) && error.code === 'TOOL_NAME_INVALID');
  assert.throws(
    () => registry.register(echoTool('broken', { parameters: { type: 'object', properties: { when: { type: 'date' } } } })),
    (error: unknown) =>
      ToolDefinitionError.isInstance(error) &&
      error.code === 'TOOL_SCHEMA_INVALID' &&
      error.toolName === 'broken' &&
      error.schemaPath === '/properties/when/type' &&
      error.message.includes('broken') &&
      error.message.includes('/properties/when/type'),
  );
  assert.equal(registry.has('broken'), false);
  // The meta-schema accepts an empty enum, but ajv refuses to compile it.
  assert.throws(
    () => registry.register(echoTool('uncompilable', { parameters: { type: 'object', properties: { mode: { enum: [] } } } })),
    (error: unknown) =>
      ToolDefinitionError.isInstance(error) &&
      error.code === 'TOOL_SCHEMA_INVALID' &&
      error.toolName === 'uncompilable' &&
      error.schemaPath === '/properties/mode/enum' &&
      error.message === 'tool "uncompilable": malformed parameter schema at /properties/mode/enum: "enum" must be a non-empty list',
  );
  assert.equal(registry.has('uncompilable'), false);
});

test('arguments are validated before the handler runs', async () => {
  const registry = new ToolRegistry();
  let runs = 0;
  registry.register(echoTool('echo', { execute: () => ({ content: String(++runs) }) }));
  const invalid = await registry.execute({ id: 'c1', name: 'echo', input: { text: 5, extra: true } }, context);
  const error = errorOf(invalid);
  assert.equal(error.code, 'TOOL_ARGUMENTS_INVALID');
  assert.deepEqual(error['issues'], [
    { path: '/extra', message: 'is not an allowed property (allowed: text)' },
    { path: '/text', message: 'expected string, got integer' },
  ]);
  const notJson = await registry.execute({ id: 'c2', name: 'echo', input: '{"text": "unterminated' }, context);
  assert.equal(toolErrorCodeOf(notJson), 'TOOL_ARGUMENTS_NOT_JSON');
  assert.equal(runs, 0);
  const fromText = await registry.execute({ id: 'c3', name: 'echo', input: '{"text":"ok"}' }, context);
  assert.deepEqual(fromText, { content: '1' });
});

test('arguments nested past MAX_JSON_DEPTH are an error result, as text or as a value; no handler or schema check sees them', async () => {
  const registry = new ToolRegistry();
  let runs = 0;
  registry.register({ name: 'open', description: 'takes anything', parameters: { type: 'object' }, execute: () => ({ content: String(++runs) }) });
  const nested = (levels: number): JsonValue => {
    let value: JsonValue = 1;
    for (let level = 0; level < levels; level += 1) value = { a: value };
    return value;
  };
  for (const input of [JSON.stringify(nested(600)), nested(600), nested(MAX_JSON_DEPTH + 1)]) {
    const error = errorOf(await registry.execute({ id: 'd1', name: 'open', input }, context));
    assert.equal(error.code, 'TOOL_ARGUMENTS_TOO_DEEP');
    assert.match(error.message, /nested more than 512 levels/);
  }
  assert.equal(runs, 0);
  assert.deepEqual(await registry.execute({ id: 'd2', name: 'open', input: nested(MAX_JSON_DEPTH) }, context), { content: '1' });
});

test('unknown tools and throwing handlers become structured results', async () => {
  const registry = new ToolRegistry();
  registry.register(echoTool('boom', { execute: () => { throw new Error('disk on fire'); } }));
  registry.register(echoTool('bogus', { execute: () => 42 as unknown as ToolOutcome }));
  const unknown = errorOf(await registry.execute({ id: 'c1', name: 'nope', input: {} }, context));
  assert.equal(unknown.code, 'TOOL_UNKNOWN');
  assert.deepEqual(unknown['availableTools'], ['bogus', 'boom']);
  const thrown = errorOf(await registry.execute({ id: 'c2', name: 'boom', input: { text: 'x' } }, context));
  assert.equal(thrown.code, 'TOOL_HANDLER_FAILED');
  assert.match(thrown.message, /disk on fire/);
  assert.equal(toolErrorCodeOf(await registry.execute({ id: 'c3', name: 'bogus', input: { text: 'x' } }, context)), 'TOOL_HANDLER_FAILED');
});

test('an aborted signal reaches the handler and yields TOOL_ABORTED', async () => {
  const registry = new ToolRegistry();
  registry.register(echoTool('wait', {
    execute: (_input, { signal }) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
  }));
  const controller = new AbortController();
  const pending = registry.execute({ id: 'c1', name: 'wait', input: { text: 'x' } }, { ...context, signal: controller.signal });
  controller.abort();
  assert.equal(toolErrorCodeOf(await pending), 'TOOL_ABORTED');
  assert.equal(toolErrorCodeOf(await registry.execute({ id: 'c2', name: 'wait', input: { text: 'y' } }, { ...context, signal: controller.signal })), 'TOOL_ABORTED');
});

test('the n-th identical call in a row is refused; any other call resets the streak', async () => {
  const registry = new ToolRegistry({ repeatedCallLimit: 3 });
  let runs = 0;
  registry.register(echoTool('echo', { execute: () => ({ content: String(++runs) }) }));
  registry.register(echoTool('other'));
  const call = (text: string, name = 'echo') => registry.execute({ id: `c-${text}`, name, input: { text } }, context);
  assert.equal((await call('a')).isError, undefined);
  assert.equal((await call('a')).isError, undefined);
  assert.equal(toolErrorCodeOf(await call('a')), 'TOOL_CALL_REPEATED');
  assert.equal(toolErrorCodeOf(await call('a')), 'TOOL_CALL_REPEATED');
  assert.equal(runs, 2);
  await call('a', 'other');
  assert.equal((await call('a')).content, '3');
  // Key order of the arguments does not make a call different; another context has its own streak.
  const ordered = new ToolRegistry({ repeatedCallLimit: 2 });
  ordered.register(echoTool('pair', { parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } } }));
  await ordered.execute({ id: '1', name: 'pair', input: { a: 1, b: 2 } }, context);
  assert.equal((await ordered.execute({ id: '1', name: 'pair', input: { a: 1, b: 2 } }, { contextId: 'ctx-2' })).isError, undefined);
  assert.equal(toolErrorCodeOf(await ordered.execute({ id: '2', name: 'pair', input: { b: 2, a: 1 } }, context)), 'TOOL_CALL_REPEATED');
});

test('an option passed as undefined keeps its default', async () => {
  const registry = new ToolRegistry({ repeatedCallLimit: undefined, maxValidationIssues: undefined });
  registry.register(echoTool('echo'));
  const call = () => registry.execute({ id: 'c', name: 'echo', input: { text: 'a' } }, context);
  assert.equal((await call()).isError, undefined);
  assert.equal((await call()).isError, undefined);
  // The default limit, 3: the third identical call is refused.
  assert.equal(toolErrorCodeOf(await call()), 'TOOL_CALL_REPEATED');
});

test('deferred tools stay hidden until search_tools promotes them', async () => {
  const registry = new ToolRegistry();
  registry.register(createSearchToolsTool({ registry }));
  registry.register(echoTool('mcp__weather__forecast', { description: 'Forecast for a city' }), { deferred: true, routingHints: ['weather', 'meteo'] });
  registry.register(echoTool('mcp__files__read', { description: 'Read a file' }), { deferred: true, routingHints: ['files'] });
  assert.deepEqual(registry.visibleTools().map((tool) => tool.name), ['search_tools']);

  const early = errorOf(await registry.execute({ id: 'c1', name: 'mcp__weather__forecast', input: { text: 'Paris' } }, context));
  assert.equal(early.code, 'TOOL_NOT_DISCOVERED');
  assert.match(early.message, /search_tools/);

  const found = await registry.execute({ id: 'c2', name: 'search_tools', input: { query: 'meteo' } }, context);
  assert.equal(found.isError, undefined);
  assert.deepEqual((found.data as { promoted: string[] }).promoted, ['mcp__weather__forecast']);
  assert.match(found.content, /mcp__weather__forecast: Forecast for a city/);
  assert.deepEqual(registry.visibleTools().map((tool) => tool.name), ['mcp__weather__forecast', 'search_tools']);
  assert.deepEqual(await registry.execute({ id: 'c3', name: 'mcp__weather__forecast', input: { text: 'Paris' } }, context), { content: 'mcp__weather__forecast:Paris' });

  const none = await registry.execute({ id: 'c4', name: 'search_tools', input: { query: 'spreadsheet' } }, context);
  assert.deepEqual((none.data as { promoted: string[] }).promoted, []);
  const exact = await registry.execute({ id: 'c5', name: 'search_tools', input: { names: ['mcp__files__read', 'ghost'] } }, context);
  assert.deepEqual(exact.data, { promoted: ['mcp__files__read'], unknownNames: ['ghost'] });
  assert.equal(registry.isVisible('mcp__files__read'), true);
});

test('executeBatch returns outcomes in call order and overlaps only concurrency-safe calls', async () => {
  const registry = new ToolRegistry();
  const log: string[] = [];
  const gate = (name: string, concurrencySafe: boolean): ToolDefinition =>
    echoTool(name, {
      concurrencySafe,
      async execute(input) {
        const text = (input as { text: string }).text;
        log.push(`start ${text}`);
        await new Promise((resolve) => setImmediate(resolve));
        log.push(`end ${text}`);
        return { content: text };
      },
    });
  registry.register(gate('safe', true));
  registry.register(gate('unsafe', false));
  const outcomes = await registry.executeBatch(
    [
      { id: '1', name: 'safe', input: { text: 'a' } },
      { id: '2', name: 'safe', input: { text: 'b' } },
      { id: '3', name: 'unsafe', input: { text: 'c' } },
      { id: '4', name: 'safe', input: { text: 'd' } },
    ],
    context,
  );
  assert.deepEqual(outcomes.map((outcome) => outcome.content), ['a', 'b', 'c', 'd']);
  assert.deepEqual(log, ['start a', 'start b', 'end a', 'end b', 'start c', 'end c', 'start d', 'end d']);
});

test('zod parameter schemas are converted to JSON Schema (input side) and validated', async () => {
  const registry = new ToolRegistry();
  registry.register({
    name: 'sum',
    parameters: z.object({ numbers: z.array(z.number()).min(1) }) as unknown as Record<string, unknown>,
    execute: (input) => ({ content: String((input as { numbers: number[] }).numbers.reduce((a, b) => a + b, 0)) }),
  });
  const [schema] = registry.visibleTools();
  assert.deepEqual(schema?.parameters, {
    type: 'object',
    properties: { numbers: { type: 'array', items: { type: 'number' }, minItems: 1 } },
    required: ['numbers'],
  });
  assert.equal((await registry.execute({ id: '1', name: 'sum', input: { numbers: [1, 2] } }, context)).content, '3');
  const error = errorOf(await registry.execute({ id: '2', name: 'sum', input: { numbers: [] } }, context));
  assert.deepEqual(error['issues'], [{ path: '/numbers', message: 'must have at least 1 items' }]);
});

test('an exact name finds only that tool; the deferred tools are named in a section and described in a data message, neither changing on promotion', async () => {
  const { deferredToolsContribution } = await import('./deferred-tools-section.js');
  const registry = new ToolRegistry();
  registry.register(createSearchToolsTool({ registry }));
  assert.deepEqual(deferredToolsContribution(registry), {});
  for (const name of ['mcp__srv__read', 'mcp__srv__write', 'mcp__srv__list']) registry.register(echoTool(name), { deferred: true, routingHints: ['srv'] });
  const before = deferredToolsContribution(registry);
  const [section] = before.sections ?? [];
  const [descriptions] = before.messages ?? [];
  assert.equal(section?.slot, 'capabilities');
  assert.ok(section?.content.endsWith('\n- mcp__srv__list\n- mcp__srv__read\n- mcp__srv__write'), section?.content);
  assert.ok(!section?.content.includes('echoes for'), 'no description enters the system prompt');
  assert.equal(descriptions?.role, 'user');
  assert.ok(descriptions?.content.endsWith('\n- mcp__srv__list: echoes for mcp__srv__list\n- mcp__srv__read: echoes for mcp__srv__read\n- mcp__srv__write: echoes for mcp__srv__write'), descriptions?.content);
  const found = await registry.execute({ id: '1', name: 'search_tools', input: { query: 'mcp__srv__write' } }, context);
  assert.deepEqual((found.data as { promoted: string[] }).promoted, ['mcp__srv__write']);
  assert.deepEqual(deferredToolsContribution(registry), before);
  const broad = await registry.execute({ id: '2', name: 'search_tools', input: { query: 'srv' } }, context);
  assert.deepEqual((broad.data as { promoted: string[] }).promoted, ['mcp__srv__list', 'mcp__srv__read', 'mcp__srv__write']);
});
