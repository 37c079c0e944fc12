import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PutToolOutput, StoredToolOutput, ToolOutputRef, ToolOutputStore } from '@strata/context';
import { ToolRegistry } from '../registry/tool-registry.js';
import { toolErrorCodeOf } from '../tool-error.js';
import type { ReadToolOutputArguments } from './read-arguments.js';
import { createReadToolOutputTool } from './read-tool-output-tool.js';
import { nextArgumentsOf } from './read-tool-output.js';
import { storeToolResult } from './store-tool-result.js';

/** A minimal in-memory port implementation; the real stores live in @strata/store. */
class TestToolOutputStore implements ToolOutputStore {
  readonly outputs = new Map<string, StoredToolOutput>();

  async put(output: PutToolOutput): Promise<ToolOutputRef> {
    const ref: ToolOutputRef = {
      id: `out_${this.outputs.size + 1}`,
      chars: output.body.length,
      lines: output.body === '' ? 0 : output.body.split('\n').length - (output.body.endsWith('\n') ? 1 : 0),
      bytes: Buffer.byteLength(output.body, 'utf8'),
    };
    this.outputs.set(ref.id, { ...output, ref, createdAt: '2026-01-01T00:00:00.000Z' });
    return ref;
  }

  async get(refId: string): Promise<StoredToolOutput | undefined> {
    return this.outputs.get(refId);
  }

  async close(): Promise<void> {}
}

test('storeToolResult keeps the body and returns the canonical message with its reference', async () => {
  const store = new TestToolOutputStore();
  const message = await storeToolResult({ store, contextId: 'ctx', call: { id: 'call_1', name: 'grep' }, outcome: { content: 'a\nb', isError: true } });
  assert.deepEqual(message, {
    role: 'tool',
    toolCallId: 'call_1',
    toolName: 'grep',
    content: 'a\nb',
    isError: true,
    outputRef: { id: 'out_1', chars: 3, lines: 2, bytes: 3 },
  });
  assert.equal((await store.get('out_1'))?.body, 'a\nb');
  const ok = await storeToolResult({ store, contextId: 'ctx', call: { id: 'call_2', name: 'grep' }, outcome: { content: 'fine' } });
  assert.equal('isError' in ok, false);
});

test('through the registry: every part of a CJK and astral body comes back byte-exact by following the header', async () => {
  const store = new TestToolOutputStore();
  const rows = Array.from({ length: 120 }, (_, index) => `第${index + 1}行 数据 😀 𠀀 value=${index}`);
  const compact = JSON.stringify({ items: Array.from({ length: 600 }, (_, index) => ({ 名前: `項目${index}`, emoji: '🧪' })) });
  const body = `${rows.join('\n')}\n${compact}\r\nend`;
  const stored = await storeToolResult({ store, contextId: 'ctx', call: { id: 'c0', name: 'dump' }, outcome: { content: body } });
  const registry = new ToolRegistry();
  registry.register(createReadToolOutputTool({ store, maxChars: 1_500 }));

  let request: ReadToolOutputArguments | undefined = { ref: stored.outputRef!.id };
  let rebuilt = '';
  let calls = 0;
  while (request !== undefined) {
    const outcome = await registry.execute({ id: `r${calls}`, name: 'read_tool_output', input: request as never }, { contextId: 'ctx' });
    calls += 1;
    assert.equal(outcome.isError, undefined, outcome.content);
    assert.ok(outcome.content.length <= 1_500);
    rebuilt += outcome.content.slice(outcome.content.indexOf('\n') + 1);
    request = nextArgumentsOf(outcome.content);
  }
  assert.equal(rebuilt, body);
  assert.ok(calls > 10);

  const query = await registry.execute({ id: 'q', name: 'read_tool_output', input: { ref: stored.outputRef!.id, query: '第7行' } }, { contextId: 'ctx' });
  assert.match(query.content, />\s*7: 第7行 数据 😀 𠀀 value=6/);
});

test('unknown refs, other contexts and bad ranges are structured errors', async () => {
  const store = new TestToolOutputStore();
  const { outputRef } = await storeToolResult({ store, contextId: 'ctx-a', call: { id: 'c', name: 't' }, outcome: { content: 'one\ntwo' } });
  const registry = new ToolRegistry();
  registry.register(createReadToolOutputTool({ store }));
  const run = (input: Record<string, unknown>, contextId = 'ctx-a') => registry.execute({ id: String(Math.random()), name: 'read_tool_output', input: input as never }, { contextId });
  assert.equal(toolErrorCodeOf(await run({ ref: 'out_404' })), 'TOOL_OUTPUT_NOT_FOUND');
  assert.equal(toolErrorCodeOf(await run({ ref: outputRef!.id }, 'ctx-b')), 'TOOL_OUTPUT_NOT_FOUND');
  assert.equal(toolErrorCodeOf(await run({ ref: outputRef!.id, lines: { start: 9 } })), 'TOOL_OUTPUT_RANGE_INVALID');
  assert.equal(toolErrorCodeOf(await run({ ref: outputRef!.id, lines: { start: 0 } })), 'TOOL_ARGUMENTS_INVALID');
  assert.equal(toolErrorCodeOf(await run({ ref: outputRef!.id, query: 'x', chars: { start: 0 } })), 'TOOL_OUTPUT_ARGUMENTS_INVALID');
  const whole = await run({ ref: outputRef!.id });
  assert.equal(whole.content, `[read_tool_output "${outputRef!.id}": lines 1-2 of 2 (chars 0-7 of 7)] end of output\none\ntwo`);
  assert.deepEqual(whole.data, { ref: outputRef!.id, mode: 'lines', slice: { start: 0, end: 7 }, next: null });
});

/** The test store with `list`: a context's outputs oldest first. */
class ListingToolOutputStore extends TestToolOutputStore {
  async list(contextId: string) {
    return [...this.outputs.values()].filter((output) => output.contextId === contextId).map((output) => ({ refId: output.ref.id, toolCallId: output.toolCallId, toolName: output.toolName, createdAt: output.createdAt }));
  }
}

const run = (tool: ReturnType<typeof createReadToolOutputTool>, contextId: string, args: Record<string, unknown>) =>
  tool.execute(args as never, { contextId, toolCallId: 'read', signal: new AbortController().signal });

test('without a ref, a query searches every stored output of the calling context, newest first, and names the rest', async () => {
  const store = new ListingToolOutputStore();
  const first = await store.put({ contextId: 'ctx', toolCallId: 'c1', toolName: 'search_flights', body: 'flight HAT123 departs 08:00\nflight HAT456 departs 09:00\n' });
  await store.put({ contextId: 'ctx', toolCallId: 'c2', toolName: 'get_user', body: 'user mia_li_3668, no flights here\n' });
  const newest = await store.put({ contextId: 'ctx', toolCallId: 'c3', toolName: 'get_reservation', body: 'reservation NO6JO3 holds flight HAT123\n' });
  await store.put({ contextId: 'other', toolCallId: 'c4', toolName: 'search_flights', body: 'flight HAT123 of another conversation\n' });
  const tool = createReadToolOutputTool({ store });

  const found = await run(tool, 'ctx', { query: 'HAT123' });
  assert.notEqual(found.isError, true, found.content);
  assert.match(found.content.split('\n')[0]!, /found in 2 of 3 stored outputs of this context, newest first; showing 2/);
  assert.deepEqual((found.data as { refs: string[] }).refs, [newest.id, first.id], 'newest first, the other context left out');
  assert.ok(found.content.indexOf('reservation NO6JO3') < found.content.indexOf('departs 08:00'));
  assert.ok(!found.content.includes('another conversation'));
  // Each part's header gives the exact arguments to read on in that output.
  assert.ok(found.content.includes(`[read_tool_output "${first.id}"`));

  const none = await run(tool, 'ctx', { query: 'ZZZ999' });
  assert.match(none.content, /no match in the 3 stored outputs of this context/);
  const folded = await run(tool, 'ctx', { query: 'hat456', ignoreCase: true });
  assert.deepEqual((folded.data as { refs: string[] }).refs, [first.id]);
});

test('a search whose matches do not fit names the other outputs; bad search arguments are typed errors', async () => {
  const store = new ListingToolOutputStore();
  const refs = [];
  for (let index = 0; index < 12; index += 1) refs.push(await store.put({ contextId: 'ctx', toolCallId: `c${index}`, toolName: 'log', body: `${'noise line\n'.repeat(50)}needle ${index}\n${'x'.repeat(300)}\n`.repeat(5) }));
  const tool = createReadToolOutputTool({ store, maxChars: 4_000 });
  const found = await run(tool, 'ctx', { query: 'needle' });
  assert.ok(found.content.length <= 4_000, `${found.content.length} characters`);
  const data = found.data as { refs: string[]; more: string[] };
  assert.equal(data.refs.length + data.more.length, 12);
  assert.ok(data.more.length > 0);
  assert.match(found.content, /\nalso found in: out_/);

  assert.equal(toolErrorCodeOf(await run(tool, 'ctx', {})), 'TOOL_OUTPUT_ARGUMENTS_INVALID');
  assert.equal(toolErrorCodeOf(await run(tool, 'ctx', { query: 'needle', lines: { start: 1 } })), 'TOOL_OUTPUT_ARGUMENTS_INVALID');
  const unlisted = createReadToolOutputTool({ store: new TestToolOutputStore() });
  const refused = await run(unlisted, 'ctx', { query: 'needle' });
  assert.equal(toolErrorCodeOf(refused), 'TOOL_OUTPUT_ARGUMENTS_INVALID');
  assert.match(refused.content, /cannot list its outputs: give the ref/);
});
