import { test } from 'node:test';
import assert from 'node:assert/strict';
import { previewToolResult, type CanonicalMessage, type ToolResultMessage } from '@strata/context';
import { createMemoryToolOutputStore } from '@strata/store';
import { laterUseRecall, usedValues } from './later-use-recall.js';

const CONTEXT = 'recall-fixture';

/** A long body whose one interesting line sits in the middle, far from a preview's head and tail. */
const body = (line: string) => [...Array.from({ length: 60 }, (_, index) => `filler line ${index} of the listing`), line, ...Array.from({ length: 60 }, (_, index) => `more filler ${index} after it`)].join('\n');

/**
 * A run of our own: the task names TASK_001; the first tool result holds
 * value_alpha_42 deep inside; a later user message gives booking_ZQ77; the
 * second result names src/beta_7.py; the answer (index 8) uses all four,
 * and zeta_9, which nothing before it held.
 */
async function fixture() {
  const store = createMemoryToolOutputStore();
  const stored = async (id: string, name: string, content: string): Promise<ToolResultMessage> => {
    const ref = await store.put({ contextId: CONTEXT, toolCallId: id, toolName: name, body: content });
    return { role: 'tool', toolCallId: id, toolName: name, content, outputRef: ref };
  };
  const first = await stored('c1', 'read_file', body('the secret is value_alpha_42 here'));
  const second = await stored('c2', 'search', 'one match: src/beta_7.py');
  const trajectory: CanonicalMessage[] = [
    { role: 'system', content: 'You fix bugs. Numbers like 2024_10 are examples.' },
    { role: 'user', content: 'Task TASK_001: fix the bug.' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', input: { path: 'notes.txt' } }] },
    first,
    { role: 'user', content: 'Also my booking is booking_ZQ77.' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c2', name: 'search', input: { query: 'beta' } }] },
    second,
    { role: 'user', content: 'Go on.' },
    { role: 'assistant', content: 'For TASK_001 and booking_ZQ77: value_alpha_42 goes in src/beta_7.py, see zeta_9 and 2024_10.' },
  ];
  return { store, trajectory, first, second, callIndex: 8 };
}

test("usedValues: identifiers, numbers and paths of the text and of the call arguments' values (not their keys), each once", () => {
  const values = usedValues({ role: 'assistant', content: 'Open ./src/a_b.py, line 1234; then plain words and 12.', toolCalls: [{ id: 'x', name: 'open', input: { path: 'src/a_b.py', flight_number: 'HAT_0417', legs: [{ seat_count: 20245 }] } }] });
  assert.deepEqual(values, ['src/a_b.py', '1234', 'HAT_0417', '20245']);
  assert.deepEqual(usedValues({ role: 'user', content: 'HAT_0417' }), []);
});

test('needed: what the answer used that the run held before the call, not from the system prompt or the task, not new', async () => {
  const { store, trajectory, callIndex } = await fixture();
  const recall = await laterUseRecall({ trajectory, callIndex, input: trajectory.slice(0, callIndex), store, contextId: CONTEXT });
  assert.deepEqual([...recall.needed].sort(), ['booking_ZQ77', 'src/beta_7.py', 'value_alpha_42']);
  // Everything before the call is in the input: all visible.
  assert.deepEqual([...recall.visible].sort(), [...recall.needed].sort());
  assert.deepEqual(recall.byReference, []);
  assert.deepEqual(recall.missed, []);
});

test('a value only in a dropped output with no reference shown is missed, though the store still holds it', async () => {
  const { store, trajectory, callIndex } = await fixture();
  // The window dropped the first step (call and result) and left no reference to it.
  const input = [trajectory[0]!, trajectory[1]!, ...trajectory.slice(4, callIndex)];
  const recall = await laterUseRecall({ trajectory, callIndex, input, store, contextId: CONTEXT });
  assert.deepEqual(recall.missed, ['value_alpha_42']);
  assert.deepEqual([...recall.visible].sort(), ['booking_ZQ77', 'src/beta_7.py']);
  assert.deepEqual(recall.byReference, []);
});

test("a value behind a reference the input shows is recalled by reference; the reference's id must be a whole word of the input", async () => {
  const { store, trajectory, first, callIndex } = await fixture();
  const preview = previewToolResult(first)!;
  assert.ok(!preview.content.includes('value_alpha_42') && preview.content.includes(first.outputRef!.id), 'the preview hides the value and names its reference');
  const input = [...trajectory.slice(0, 3), preview, ...trajectory.slice(4, callIndex)];
  const recall = await laterUseRecall({ trajectory, callIndex, input, store, contextId: CONTEXT });
  assert.deepEqual(recall.byReference, ['value_alpha_42']);
  assert.deepEqual(recall.missed, []);
  // The same id, only as part of a longer word: not a reference the model was shown.
  const glued = { ...preview, content: preview.content.replaceAll(first.outputRef!.id, `${first.outputRef!.id}x`) };
  const hidden = await laterUseRecall({ trajectory, callIndex, input: [...trajectory.slice(0, 3), glued, ...trajectory.slice(4, callIndex)], store, contextId: CONTEXT });
  assert.deepEqual(hidden.missed, ['value_alpha_42']);
  // Read in another context, the reference answers nothing: missed.
  const elsewhere = await laterUseRecall({ trajectory, callIndex, input, store, contextId: 'another-run' });
  assert.deepEqual(elsewhere.missed, ['value_alpha_42']);
  // A policy that keeps no copy: nothing is readable.
  const noStore = await laterUseRecall({ trajectory, callIndex, input });
  assert.deepEqual(noStore.missed, ['value_alpha_42']);
});

test("a shown reference that does not hold the value does not recall it; a dropped user message has no way back", async () => {
  const { store, trajectory, second, callIndex } = await fixture();
  const secondPreview: ToolResultMessage = { ...second, content: `[stored output ref="${second.outputRef!.id}": see it with read_tool_output]`, masked: true };
  // The first step and the later user message dropped; the second result shown only by its reference.
  const input = [trajectory[0]!, trajectory[1]!, trajectory[5]!, secondPreview, trajectory[7]!];
  const recall = await laterUseRecall({ trajectory, callIndex, input, store, contextId: CONTEXT });
  assert.deepEqual(recall.byReference, ['src/beta_7.py']);
  assert.deepEqual([...recall.missed].sort(), ['booking_ZQ77', 'value_alpha_42']);
  assert.deepEqual(recall.visible, []);
});

test("a value only the model's own earlier answer held is not needed: that is what a checkpoint carries, not a stored output", async () => {
  const trajectory: CanonicalMessage[] = [
    { role: 'user', content: 'Pick a code.' },
    { role: 'assistant', content: 'I pick code_XY12.' },
    { role: 'user', content: 'Now use it.' },
    { role: 'assistant', content: 'Using code_XY12.' },
  ];
  const recall = await laterUseRecall({ trajectory, callIndex: 3, input: [trajectory[0]!, trajectory[2]!] });
  assert.deepEqual(recall.needed, []);
});
