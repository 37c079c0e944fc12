import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StoreInputError } from '../errors/store-input-error.js';
import { derivedToolOutputId, toolOutputIdSequence } from '../tool-output-body.js';
import { toolOutputStoreContract } from '../testing/tool-output-store-contract.js';
import { createMemoryToolOutputStore } from './memory-tool-output-store.js';

toolOutputStoreContract({ name: 'memory ToolOutputStore', open: createMemoryToolOutputStore, openDerived: () => createMemoryToolOutputStore({ newId: derivedToolOutputId }), sharesData: false, propertyRuns: 200 });

test('a memory store takes its ids from newId, and refuses a malformed or repeated one without storing', async () => {
  const store = createMemoryToolOutputStore({ newId: toolOutputIdSequence('seed') });
  const expected = toolOutputIdSequence('seed');
  const put = (body: string) => store.put({ contextId: 'c', toolCallId: 'call', toolName: 'shell', body });
  assert.equal((await put('one')).id, expected());
  assert.equal((await put('two')).id, expected());
  const repeated = toolOutputIdSequence('again')();
  for (const [newId, first] of [[() => 'not-an-id', false], [() => 42, false], [() => repeated, true]] as const) {
    const refusing = createMemoryToolOutputStore({ newId: newId as () => string });
    if (first) await refusing.put({ contextId: 'c', toolCallId: 'first', toolName: 'shell', body: 'kept' });
    await assert.rejects(refusing.put({ contextId: 'c', toolCallId: 'call', toolName: 'shell', body: 'x' }), (error: unknown) => StoreInputError.isInstance(error) && error.culprit === 'newId');
    assert.deepEqual((await refusing.list!('c')).map((entry) => entry.toolCallId), first ? ['first'] : []);
    if (first) assert.equal((await refusing.get(repeated))?.body, 'kept');
  }
  assert.throws(() => createMemoryToolOutputStore({ newId: 'id' as never }), (error: unknown) => StoreInputError.isInstance(error) && error.culprit === 'newId');
});
