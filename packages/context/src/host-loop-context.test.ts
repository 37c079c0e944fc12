import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CanonicalMessage, ToolOutputRef } from './messages.js';
import type { PutToolOutput, StoredToolOutput, ToolOutputStore } from './ports.js';
import { createHostLoopContext } from './host-loop-context.js';

function memoryStore(): ToolOutputStore & { puts: PutToolOutput[] } {
  const outputs = new Map<string, StoredToolOutput>();
  const puts: PutToolOutput[] = [];
  return {
    puts,
    async put(output) {
      puts.push(output);
      const ref: ToolOutputRef = { id: `out-${puts.length}`, chars: output.body.length, lines: output.body.split('\n').length, bytes: Buffer.byteLength(output.body) };
      outputs.set(ref.id, { ...output, ref, createdAt: '2026-01-01T00:00:00.000Z' });
      return ref;
    },
    async get(id) {
      return outputs.get(id);
    },
    async close() {},
  };
}

const task: CanonicalMessage = { role: 'user', content: 'Summarise the log.' };
const call: CanonicalMessage = { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_log', input: {} }] };
const result: CanonicalMessage = { role: 'tool', toolCallId: 'c1', toolName: 'read_log', content: 'x'.repeat(2_000) };

test('each turn appends what the host added, stores large results once, and sends unchanged messages with their origins', async () => {
  const store = memoryStore();
  const context = createHostLoopContext<string>({ budget: { inputCapTokens: 50_000 }, outputStore: store });
  const first = await context.prepare({ contextId: 'c', messages: [{ message: task, origin: 'task' }] });
  assert.deepEqual(first.messages.map(({ origin }) => origin), ['task']);
  const second = await context.prepare({ contextId: 'c', messages: [{ message: task, origin: 'task' }, { message: call, origin: 'call' }, { message: result, origin: 'result' }] });
  assert.equal(store.puts.length, 1, 'the large result is stored');
  assert.deepEqual(second.messages.map(({ origin }) => origin), ['task', 'call', 'result']);
  const stored = second.assembled.history.at(-1) as Extract<CanonicalMessage, { role: 'tool' }>;
  assert.equal(stored.outputRef?.id, 'out-1');
  // The next turn reuses the stored history: nothing is stored twice.
  await context.prepare({ contextId: 'c', messages: [{ message: task, origin: 'task' }, { message: call, origin: 'call' }, { message: result, origin: 'result' }, { message: { role: 'user', content: 'Thanks.' }, origin: 'thanks' }] });
  assert.equal(store.puts.length, 1);
  assert.equal(context.lastTurn('c'), 3);
});

test('a history that no longer starts with what the host passed before starts the context over', async () => {
  const store = memoryStore();
  const context = createHostLoopContext<string>({ budget: { inputCapTokens: 50_000 }, outputStore: store });
  await context.prepare({ contextId: 'c', messages: [{ message: task, origin: 'task' }, { message: call, origin: 'call' }, { message: result, origin: 'result' }] });
  const other: CanonicalMessage = { role: 'user', content: 'Something else.' };
  const turn = await context.prepare({ contextId: 'c', messages: [{ message: other, origin: 'other' }] });
  assert.deepEqual(turn.messages.map(({ message }) => message), [other]);
  assert.equal(turn.assembled.trace.turn, 2);
});
