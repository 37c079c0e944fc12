import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryStores } from '@strata/store';
import { storedOncePerCall } from './stored-once.js';

test('storedOncePerCall: the same body for the same context and call is the stored reference; another body, call or context is stored anew', async () => {
  const { toolOutputs } = createMemoryStores();
  const once = storedOncePerCall(toolOutputs);
  const put = (contextId: string, toolCallId: string, body: string) => once.put({ contextId, toolCallId, toolName: 'run_step', body });
  const first = await put('c1', 'call-1', 'output one');
  assert.deepEqual(await put('c1', 'call-1', 'output one'), first);
  assert.notEqual((await put('c1', 'call-1', 'output edited')).id, first.id);
  await put('c1', 'call-2', 'output one');
  await put('c2', 'call-1', 'output one');
  assert.deepEqual((await toolOutputs.list!('c1')).map((entry) => entry.toolCallId), ['call-1', 'call-1', 'call-2']);
  assert.equal((await toolOutputs.list!('c2')).length, 1);
  assert.equal((await once.get(first.id))?.body, 'output one');
});
